import CTAP

/// A failed WebAuthn ceremony, named as WebAuthn L3 names its DOMExceptions
/// (§5.1.3, §5.1.4), with what went wrong underneath and a sentence for people.
public struct WebAuthnError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The DOMException names a WebAuthn ceremony can fail with; the raw value is the name.
    public enum Name: String, Sendable {
        case notAllowed = "NotAllowedError"
        case invalidState = "InvalidStateError"
        case security = "SecurityError"
        case abort = "AbortError"
        case notSupported = "NotSupportedError"
        case constraint = "ConstraintError"
        case unknown = "UnknownError"
        /// WebAuthn L3 raises TypeError for malformed options (e.g. a user.id of the wrong length).
        case type = "TypeError"
    }

    /// What the authenticator or the transport said, when the error came from there.
    public enum Cause: Sendable, Equatable {
        /// The authenticator's status.
        case ctap(CTAPStatus)
        /// Why the message did not make the round trip.
        case transport(TransportError)
    }

    /// What a browser would report.
    public let name: Name
    /// A sentence for people; never a PIN, a token or a key.
    public let message: String
    /// What went wrong underneath, when the authenticator or the transport said so.
    public let cause: Cause?
    /// The full story for the person at this machine (a command line, the extension's console),
    /// when `message` leaves it out because a web page reads it: a socket's path names the user's
    /// runtime folder, and often the user. Nil when `message` says everything.
    public let detail: String?

    /// An error with its name, sentence, cause and, when the sentence is a page's, the detail.
    public init(_ name: Name, _ message: String, cause: Cause? = nil, detail: String? = nil) {
        self.name = name
        self.message = message
        self.cause = cause
        self.detail = detail
    }

    /// The name, the sentence (the detailed one when there is one) and the cause in brackets.
    public var description: String {
        var text = "\(name.rawValue): \(detail ?? message)"
        switch cause {
        case .ctap(let status): text += " [\(status)]"
        case .transport(let error): text += " [transport: \(error)]"
        case nil: break
        }
        return text
    }

    /// Shorthands, one per name.
    public static func notAllowed(_ message: String, cause: Cause? = nil, detail: String? = nil) -> WebAuthnError {
        .init(.notAllowed, message, cause: cause, detail: detail)
    }
    public static func invalidState(_ message: String, cause: Cause? = nil) -> WebAuthnError {
        .init(.invalidState, message, cause: cause)
    }
    public static func security(_ message: String) -> WebAuthnError { .init(.security, message) }
    public static func abort(_ message: String, cause: Cause? = nil) -> WebAuthnError {
        .init(.abort, message, cause: cause)
    }
    public static func notSupported(_ message: String, cause: Cause? = nil) -> WebAuthnError {
        .init(.notSupported, message, cause: cause)
    }
    public static func constraint(_ message: String, cause: Cause? = nil) -> WebAuthnError {
        .init(.constraint, message, cause: cause)
    }
    public static func unknown(_ message: String, cause: Cause? = nil) -> WebAuthnError {
        .init(.unknown, message, cause: cause)
    }
}
