import CTAP
import Foundation
import PasskeyClient

/// Why a passkeyctl command did not do what was asked, as the person reads it.
enum Failure: Error, Sendable {
    case usage(String)
    case noDaemon(socket: String)
    case daemonGone(socket: String)
    /// The socket is not our own daemon's; nothing was sent (the sentence says what was found).
    case untrustedSocket(String)
    case wrongPIN(retriesLeft: Int?)
    /// Three wrong PINs in a row: the authenticator wants a power cycle (CTAP 2.1 §6.5.5.7.2 step 6).
    case pinAuthBlocked(retriesLeft: Int?)
    /// pinRetries reached zero: only a reset helps (CTAP 2.1 §6.5.5.7.2 step 3).
    case pinBlocked
    case uvFailed
    case uvBlocked
    case notFound(String)
    case ambiguous(prefix: String, matches: [String])
    case denied(String)
    case refused(String)
    case device(CTAPStatus)
    case connection(String)

    var exitStatus: ExitStatus {
        switch self {
        case .usage: return .usage
        case .noDaemon, .daemonGone, .untrustedSocket: return .noDaemon
        case .wrongPIN, .uvFailed: return .wrongPIN
        case .pinAuthBlocked, .pinBlocked, .uvBlocked: return .pinBlocked
        case .notFound, .ambiguous: return .notFound
        case .denied: return .denied
        case .refused: return .refused
        case .device, .connection: return .deviceError
        }
    }

    /// A stable identifier for scripts (`--json`).
    var kind: String {
        switch self {
        case .usage: return "usage"
        case .noDaemon: return "no-daemon"
        case .daemonGone: return "daemon-gone"
        case .untrustedSocket: return "untrusted-socket"
        case .wrongPIN: return "wrong-pin"
        case .pinAuthBlocked: return "pin-auth-blocked"
        case .pinBlocked: return "pin-blocked"
        case .uvFailed: return "uv-failed"
        case .uvBlocked: return "uv-blocked"
        case .notFound: return "not-found"
        case .ambiguous: return "ambiguous"
        case .denied: return "denied"
        case .refused: return "refused"
        case .device: return "device-error"
        case .connection: return "connection-error"
        }
    }

    var message: String {
        switch self {
        case .usage(let text):
            return text
        case .noDaemon(let socket):
            return "No daemon at \(socket) — start it with `passkeyd --detach`."
        case .daemonGone(let socket):
            return "The daemon at \(socket) closed the connection before answering."
        case .wrongPIN(let left):
            return "Wrong PIN" + (left.map { ", \($0) \($0 == 1 ? "try" : "tries") left." } ?? ".")
        case .pinAuthBlocked(let left):
            return "Wrong PIN three times in a row: the authenticator takes no more PINs until it is replugged. "
                + "Run `passkeyctl replug` and try again"
                + (left.map { " (\($0) \($0 == 1 ? "try" : "tries") left)." } ?? ".")
        case .pinBlocked:
            return
                "The PIN is blocked after too many wrong tries. Only `passkeyctl reset` makes the authenticator usable again, and it erases every credential."
        case .uvFailed:
            return "Built-in user verification did not match."
        case .uvBlocked:
            return "Built-in user verification is blocked after too many failures; use the PIN."
        case .notFound(let text):
            return text
        case .ambiguous(let prefix, let matches):
            return
                "'\(prefix)' matches \(matches.count) credentials; nothing was deleted or changed. Give more of the ID:\n"
                + matches.map { "  \($0)" }.joined(separator: "\n")
        case .untrustedSocket(let text), .denied(let text), .refused(let text), .connection(let text):
            return text
        case .device(let status):
            return "The authenticator refused the request: \(status)."
        }
    }

    /// Prints the failure: a sentence on standard error, or a JSON object on standard output.
    func report(json: Bool) {
        if json {
            var fields: [(String, JSON)] = [
                ("kind", .string(kind)), ("message", .string(message)), ("exitCode", .int(Int(exitStatus.rawValue)))
            ]
            switch self {
            case .wrongPIN(let left?), .pinAuthBlocked(let left?): fields.append(("retriesLeft", .int(left)))
            case .ambiguous(_, let matches): fields.append(("matches", .array(matches.map(JSON.string))))
            case .device(let status): fields.append(("status", .string(status.specName)))
            default: break
            }
            Output.json(.object([("error", .object(fields))]))
        } else {
            // The argument parser's own messages already begin with "Error:".
            Output.error(message.hasPrefix("Error:") ? message : "passkeyctl: \(message)")
        }
    }

    /// The person's reading of a CTAP2 error outside any special context.
    init(_ error: CTAP2Error, socket: String) {
        switch error {
        case .transport(.unreachable): self = .noDaemon(socket: socket)
        case .transport(.disconnected): self = .daemonGone(socket: socket)
        case .transport(.untrusted(let sentence)): self = .untrustedSocket(sentence)
        case .transport(.timeout): self = .connection("The daemon at \(socket) stopped answering.")
        case .transport(let other): self = .connection("Talking to the daemon at \(socket) failed: \(other).")
        case .malformedResponse:
            self = .connection("The authenticator answered with something that is not a valid response.")
        case .status(let status): self.init(status)
        }
    }

    init(_ error: TransportError, socket: String) {
        self.init(CTAP2Error.transport(error), socket: socket)
    }

    init(_ status: CTAPStatus) {
        switch status {
        case .pinInvalid: self = .wrongPIN(retriesLeft: nil)
        case .pinAuthBlocked: self = .pinAuthBlocked(retriesLeft: nil)
        case .pinBlocked: self = .pinBlocked
        case .uvInvalid: self = .uvFailed
        case .uvBlocked: self = .uvBlocked
        case .noCredentials: self = .notFound("No such credential.")
        case .operationDenied: self = .denied("User presence was denied.")
        case .keepaliveCancel: self = .denied("The request was cancelled.")
        case .userActionTimeout, .actionTimeout: self = .denied("Nobody answered the presence prompt in time.")
        case .pinNotSet: self = .refused("No PIN is set: set one with `passkeyctl pin set`.")
        case .pinPolicyViolation: self = .refused("The authenticator does not accept that PIN (too short or too long).")
        default: self = .device(status)
        }
    }
}
