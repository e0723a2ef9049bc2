import ArgumentParser
import CTAP
import Foundation
import PasskeyClient
import WebAuthn

/// `passkeyctl webauthn create|get`: a scriptable browser. WebAuthn options JSON in
/// (from a relying party's server), response JSON out, through `PasskeyClient` and the daemon.
struct WebAuthnCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "webauthn",
        abstract: "Run a WebAuthn ceremony as a browser would: options JSON in, response JSON out.",
        subcommands: [Create.self, Get.self])

    struct Common: ParsableArguments {
        @Option(help: "The web origin the ceremony runs for, e.g. https://example.com.")
        var origin: String

        @Option(help: "A file holding the options JSON (PublicKeyCredential*OptionsJSON); default: standard input.")
        var options: String?

        @Option(help: "Pick the account with this label (user name) when there is a choice; default: the first.")
        var pick: String?

        /// The socket and PIN come from passkeyctl's global options (`--socket`, `--pin-file`, or the environment).
        func client(_ global: GlobalOptions) throws -> WebAuthnClient {
            let pin = try PINEntry.given(file: global.pinFile)
            let agent = ScriptedUserAgent(picks: [pick.map { .label($0) } ?? .first], pins: pin.map { [$0, nil] } ?? [])
            return try WebAuthnClient(
                transport: UnixSocketTransport(path: global.socketPath), origin: origin, userAgent: agent)
        }

        /// The options document, or a usage failure saying in WebAuthn's words what is wrong with it.
        func readOptions<T: Decodable>(_ type: T.Type) throws -> T {
            let data: Data
            if let options {
                guard let contents = FileManager.default.contents(atPath: options) else {
                    throw Failure.usage("Cannot read the options file \(options).")
                }
                data = contents
            } else {
                data = FileHandle.standardInput.readDataToEndOfFile()
            }
            guard data.contains(where: { !Set(" \t\r\n".utf8).contains($0) }) else {
                throw Failure.usage(
                    "No options on \(options ?? "standard input"): give the relying party's \(T.self) there, or name a file with --options."
                )
            }
            do {
                return try OptionsJSONError.decode(type, from: data)
            } catch {
                throw Failure.usage(error.description)
            }
        }
    }

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "navigator.credentials.create(): prints RegistrationResponseJSON.")
        @OptionGroup var global: GlobalOptions
        @OptionGroup var common: Common

        func run() async throws {
            let options = try common.readOptions(PublicKeyCredentialCreationOptionsJSON.self)
            try await WebAuthnCommand.report(socket: global.socketPath) {
                try await common.client(global).create(options)
            }
        }
    }

    struct Get: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "navigator.credentials.get(): prints AuthenticationResponseJSON, or the chosen password.")
        @OptionGroup var global: GlobalOptions
        @OptionGroup var common: Common

        @Option(help: "modal, conditional (AutoFill: the picked suggestion completes it) or immediate.")
        var mediation: MediationArgument = .modal

        @Option(
            name: .customLong("password"),
            help: "A saved password offered beside passkeys, as USER:PASSWORD (repeatable).")
        var passwords: [String] = []

        func run() async throws {
            let options = try common.readOptions(PublicKeyCredentialRequestOptionsJSON.self)
            let saved = try passwords.map { entry -> PasswordCredential in
                guard let colon = entry.firstIndex(of: ":") else {
                    throw ValidationError("--password takes USER:PASSWORD")
                }
                return PasswordCredential(
                    user: String(entry[..<colon]), password: String(entry[entry.index(after: colon)...]))
            }
            try await WebAuthnCommand.report(socket: global.socketPath) {
                switch try await common.client(global).get(options, mediation: mediation.mediation, passwords: saved) {
                case .passkey(let response):
                    return AnyEncodable(response)
                case .password(let password):
                    return AnyEncodable(["type": "password", "id": password.user, "password": password.password])
                }
            }
        }
    }

    enum MediationArgument: String, ExpressibleByArgument, CaseIterable {
        case modal, conditional, immediate

        var mediation: Mediation {
            switch self {
            case .modal: return .optional
            case .conditional: return .conditional
            case .immediate: return .immediate
            }
        }
    }

    /// Prints the result as JSON. A WebAuthn error becomes passkeyctl's `Failure`, so it is
    /// reported (as a sentence, or JSON under `--json`) and exits like every other command.
    static func report<T: Encodable>(socket: String, _ body: () async throws -> T) async throws {
        let result: T
        do {
            result = try await body()
        } catch let error as WebAuthnError {
            throw failure(for: error, socket: socket)
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        FileHandle.standardOutput.write(try encoder.encode(result) + Data("\n".utf8))
    }

    /// No daemon, or one that hung up, is exit 2; a blocked PIN gets passkeyctl's advice and exit
    /// status; a ceremony refused, cancelled or excluded is `.denied` (6).
    static func failure(for error: WebAuthnError, socket: String) -> Failure {
        switch error.cause {
        case .transport(.unreachable(let socket))?: return .noDaemon(socket: socket)
        case .transport(.untrusted(let sentence))?: return .untrustedSocket(sentence)
        case .transport(.disconnected)?: return .daemonGone(socket: socket)
        case .ctap(let status)? where status == .pinAuthBlocked || status == .pinBlocked: return Failure(status)
        default: break
        }
        switch error.name {
        case .notAllowed, .abort, .invalidState: return .denied(error.description)
        default: return .connection(error.description)
        }
    }
}

/// Type erasure so one command prints either response shape.
struct AnyEncodable: Encodable {
    private let encodeValue: (any Encoder) throws -> Void
    init<T: Encodable>(_ value: T) { encodeValue = value.encode(to:) }
    func encode(to encoder: any Encoder) throws { try encodeValue(encoder) }
}
