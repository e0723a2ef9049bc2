import Foundation
import WebAuthn

/// A message from the extension (docs/browser-protocol.md, "Extension → host"), parsed at the
/// edge: every member checked for presence and JSON type before anything acts on it.
enum BrowserRequest: Sendable {
    case create(Caller, PublicKeyCredentialCreationOptionsJSON)
    case get(Caller, PublicKeyCredentialRequestOptionsJSON, BrowserMediation)
    case capabilities(Caller)
    case signal(Caller, BrowserSignal)
    case ping(id: String)
    /// Ends the pending request `target` with AbortError; never answered itself.
    case abort(target: String)
    /// The person's answer to a `choose`, `suggest` or `pin` prompt.
    case choice(target: String, ChoiceAnswer)

    /// Who asks: the request's id on the port, and the frame's origin and the tab's top-level
    /// origin as the extension's privileged side read them from the message's sender.
    struct Caller: Sendable, Decodable {
        let id: String
        let origin: String
        let topOrigin: String
    }

    /// The request's id, for requests that are answered.
    var id: String? {
        switch self {
        case .create(let caller, _), .get(let caller, _, _), .capabilities(let caller), .signal(let caller, _):
            return caller.id
        case .ping(let id): return id
        case .abort, .choice: return nil
        }
    }

    /// Parses one message; a malformed one throws the sentence that names the member at fault,
    /// with the message's id when that much could be read.
    init(json bytes: [UInt8]) throws(BrowserProtocolError) {
        let data = Data(bytes)
        let header: Header
        do { header = try JSONDecoder().decode(Header.self, from: data) } catch {
            throw BrowserProtocolError(id: nil, message: "The message is not a JSON object.")
        }
        guard let type = header.type else {
            throw BrowserProtocolError(id: header.id, message: "The message has no member 'type' that is a string.")
        }
        /// Decodes the message as `T`. A member of `options` is named as the page's author knows
        /// it, within its WebAuthn dictionary; a member of the message, within the message.
        func decode<T: Decodable>(_: T.Type, options dictionary: String? = nil) throws(BrowserProtocolError) -> T {
            do { return try OptionsJSONError.decode(T.self, from: data) } catch {
                let member = error.member
                if let dictionary, member.hasPrefix("options.") {
                    let inner = OptionsJSONError(
                        dictionary: dictionary, member: String(member.dropFirst("options.".count)),
                        problem: error.problem)
                    throw BrowserProtocolError(id: header.id, message: inner.description)
                }
                throw BrowserProtocolError(
                    id: header.id,
                    message: member.isEmpty
                        ? "The \(type) message \(error.problem)."
                        : "The \(type) message's member '\(member)' \(error.problem).")
            }
        }
        switch type {
        case "create":
            let message = try decode(
                Options<PublicKeyCredentialCreationOptionsJSON>.self, options: "PublicKeyCredentialCreationOptionsJSON")
            self = .create(message.caller, message.options)
        case "get":
            let message = try decode(
                Options<PublicKeyCredentialRequestOptionsJSON>.self, options: "PublicKeyCredentialRequestOptionsJSON")
            let mediation = try decode(MediationMember.self).mediation ?? "optional"
            guard let parsed = BrowserMediation(rawValue: mediation) else {
                throw BrowserProtocolError(
                    id: header.id,
                    message:
                        "The get message's member 'mediation' must be one of \(BrowserMediation.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")), not \"\(mediation)\"."
                )
            }
            self = .get(message.caller, message.options, parsed)
        case "capabilities":
            self = .capabilities(try decode(Caller.self))
        case "signal":
            let caller = try decode(Caller.self)
            let kind = try decode(SignalKind.self).kind
            switch kind {
            case "unknownCredential":
                self = .signal(
                    caller,
                    .unknownCredential(
                        try decode(Options<UnknownCredentialOptions>.self, options: "UnknownCredentialOptions").options)
                )
            case "allAcceptedCredentials":
                self = .signal(
                    caller,
                    .allAcceptedCredentials(
                        try decode(
                            Options<AllAcceptedCredentialsOptions>.self, options: "AllAcceptedCredentialsOptions"
                        ).options))
            case "currentUserDetails":
                self = .signal(
                    caller,
                    .currentUserDetails(
                        try decode(Options<CurrentUserDetailsOptions>.self, options: "CurrentUserDetailsOptions")
                            .options))
            default:
                throw BrowserProtocolError(
                    id: header.id,
                    message:
                        "The signal message's member 'kind' must be \"unknownCredential\", \"allAcceptedCredentials\" or \"currentUserDetails\", not \"\(kind)\"."
                )
            }
        case "ping":
            self = .ping(id: try decode(Identified.self).id)
        case "abort":
            self = .abort(target: try decode(Targeted.self).target)
        case "choice":
            let message = try decode(Choice.self)
            // One prompt, one answer: exactly one of the two members, present (null is an answer).
            switch (message.index, message.pin) {
            case (let index?, nil):
                guard index.map({ $0 >= 0 }) ?? true else {
                    throw BrowserProtocolError(
                        id: header.id, message: "The choice message's member 'index' must be 0 or more, or null.")
                }
                self = .choice(target: message.target, .index(index))
            case (nil, let pin?):
                self = .choice(target: message.target, .pin(pin))
            case (nil, nil):
                throw BrowserProtocolError(
                    id: header.id,
                    message:
                        "The choice message needs the member 'index' (a chooser's answer) or 'pin' (a PIN dialog's answer)."
                )
            case (_?, _?):
                throw BrowserProtocolError(
                    id: header.id,
                    message: "The choice message has both 'index' and 'pin': it answers one prompt, with one of them.")
            }
        default:
            throw BrowserProtocolError(
                id: header.id,
                message:
                    "Unknown message type \"\(type)\": this host knows create, get, capabilities, signal, abort, choice and ping."
            )
        }
    }

    /// `type` and `id`, each read only when it is a string: enough to address the error reply.
    private struct Header: Decodable {
        let type: String?
        let id: String?
        enum CodingKeys: String, CodingKey { case type, id }
        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            type = try? c.decodeIfPresent(String.self, forKey: .type)
            id = try? c.decodeIfPresent(String.self, forKey: .id)
        }
    }

    private struct Options<T: Decodable>: Decodable {
        let caller: Caller
        let options: T
        enum CodingKeys: String, CodingKey { case options }
        init(from decoder: any Decoder) throws {
            caller = try Caller(from: decoder)
            options = try decoder.container(keyedBy: CodingKeys.self).decode(T.self, forKey: .options)
        }
    }

    private struct MediationMember: Decodable { let mediation: String? }
    private struct SignalKind: Decodable { let kind: String }
    private struct Identified: Decodable { let id: String }
    private struct Targeted: Decodable { let target: String }
    /// `index` and `pin` are each nil when absent and `.some(nil)` when null (dismissed, cancelled):
    /// absent and null differ, since null is an answer.
    private struct Choice: Decodable {
        let target: String
        let index: Int??
        let pin: String??
        enum CodingKeys: String, CodingKey { case target, index, pin }
        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            target = try c.decode(String.self, forKey: .target)
            index = try Self.member(Int.self, .index, in: c)
            pin = try Self.member(String.self, .pin, in: c)
        }
        private static func member<T: Decodable>(_: T.Type, _ key: CodingKeys, in c: KeyedDecodingContainer<CodingKeys>)
            throws -> T??
        {
            guard c.contains(key) else { return nil }
            return .some(try c.decodeNil(forKey: key) ? nil : c.decode(T.self, forKey: key))
        }
    }
}

/// A `choice`'s answer, of the kind its prompt asked for.
enum ChoiceAnswer: Sendable {
    /// A chooser's or suggestion list's: the picked entry (0-based), or nil when dismissed.
    case index(Int?)
    /// A PIN dialog's: the PIN as typed, or nil when cancelled. Never logged nor echoed.
    case pin(String?)
}

/// A message that could not be parsed: answered with `error`, name TypeError, and the port stays open.
struct BrowserProtocolError: Error, Sendable, Equatable {
    let id: String?
    let message: String
}

/// `get`'s `mediation` (Credential Management's CredentialMediationRequirement, plus
/// `immediate`, docs/browser-protocol.md).
enum BrowserMediation: String, Sendable, CaseIterable {
    case optional, required, silent, conditional, immediate
}

/// A Signal API call (WebAuthn L3 §5.1.10), its argument as the page passed it.
enum BrowserSignal: Sendable {
    case unknownCredential(UnknownCredentialOptions)
    case allAcceptedCredentials(AllAcceptedCredentialsOptions)
    case currentUserDetails(CurrentUserDetailsOptions)
}

extension BrowserSignal {
    /// The RP ID the signal names.
    var rpId: String {
        switch self {
        case .unknownCredential(let options): return options.rpId
        case .allAcceptedCredentials(let options): return options.rpId
        case .currentUserDetails(let options): return options.rpId
        }
    }
}

/// UnknownCredentialOptions (WebAuthn L3 §5.1.10.1).
struct UnknownCredentialOptions: Sendable, Decodable {
    let rpId: String
    let credentialId: String
}

/// AllAcceptedCredentialsOptions (WebAuthn L3 §5.1.10.2).
struct AllAcceptedCredentialsOptions: Sendable, Decodable {
    let rpId: String
    let userId: String
    let allAcceptedCredentialIds: [String]
}

/// CurrentUserDetailsOptions (WebAuthn L3 §5.1.10.3).
struct CurrentUserDetailsOptions: Sendable, Decodable {
    let rpId: String
    let userId: String
    let name: String
    let displayName: String
}
