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
    /// The person's answer to a `choose` or `suggest`: an entry's index, or nil when dismissed.
    case choice(target: String, index: Int?)

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
        case .create(let caller, _), .get(let caller, _, _), .capabilities(let caller), .signal(let caller, _): return caller.id
        case .ping(let id): return id
        case .abort, .choice: return nil
        }
    }

    /// Parses one message; a malformed one throws the sentence that names what is wrong,
    /// with the message's id when that much could be read.
    init(json bytes: [UInt8]) throws(BrowserProtocolError) {
        let data = Data(bytes)
        let header: Header
        do { header = try JSONDecoder().decode(Header.self, from: data) } catch {
            throw BrowserProtocolError(id: nil, message: "The message is not a JSON object.")
        }
        guard let type = header.type else {
            throw BrowserProtocolError(id: header.id, message: "The message has no string `type`.")
        }
        func decode<T: Decodable>(_: T.Type) throws(BrowserProtocolError) -> T {
            do { return try JSONDecoder().decode(T.self, from: data) } catch {
                throw BrowserProtocolError(id: header.id, message: "In a `\(type)` message, " + Self.describe(error))
            }
        }
        switch type {
        case "create":
            let message = try decode(Options<PublicKeyCredentialCreationOptionsJSON>.self)
            self = .create(message.caller, message.options)
        case "get":
            let message = try decode(Options<PublicKeyCredentialRequestOptionsJSON>.self)
            let mediation = try decode(MediationMember.self).mediation ?? "optional"
            guard let parsed = BrowserMediation(rawValue: mediation) else {
                throw BrowserProtocolError(
                    id: header.id, message: "`mediation` must be one of \(BrowserMediation.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")), not \"\(mediation)\".")
            }
            self = .get(message.caller, message.options, parsed)
        case "capabilities":
            self = .capabilities(try decode(Caller.self))
        case "signal":
            let caller = try decode(Caller.self)
            let kind = try decode(SignalKind.self).kind
            switch kind {
            case "unknownCredential":
                self = .signal(caller, .unknownCredential(try decode(Options<UnknownCredentialOptions>.self).options))
            case "allAcceptedCredentials":
                self = .signal(caller, .allAcceptedCredentials(try decode(Options<AllAcceptedCredentialsOptions>.self).options))
            case "currentUserDetails":
                self = .signal(caller, .currentUserDetails(try decode(Options<CurrentUserDetailsOptions>.self).options))
            default:
                throw BrowserProtocolError(
                    id: header.id, message: "`kind` must be \"unknownCredential\", \"allAcceptedCredentials\" or \"currentUserDetails\", not \"\(kind)\".")
            }
        case "ping":
            self = .ping(id: try decode(Identified.self).id)
        case "abort":
            self = .abort(target: try decode(Targeted.self).target)
        case "choice":
            let message = try decode(Choice.self)
            guard message.index.map({ $0 >= 0 }) ?? true else {
                throw BrowserProtocolError(id: header.id, message: "`index` must be 0 or more, or null.")
            }
            self = .choice(target: message.target, index: message.index)
        default:
            throw BrowserProtocolError(
                id: header.id, message: "Unknown message type \"\(type)\": this host knows create, get, capabilities, signal, abort, choice and ping.")
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
    private struct Choice: Decodable {
        let target: String
        let index: Int?
        enum CodingKeys: String, CodingKey { case target, index }
        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            target = try c.decode(String.self, forKey: .target)
            // Present and null (dismissed) is the only way to say no index: a missing member is an error.
            guard c.contains(.index) else {
                throw DecodingError.keyNotFound(CodingKeys.index, .init(codingPath: [], debugDescription: "missing"))
            }
            index = try c.decodeNil(forKey: .index) ? nil : c.decode(Int.self, forKey: .index)
        }
    }

    /// A decoding failure as a sentence naming the member: "`options.user.id` is missing."
    static func describe(_ error: any Error) -> String {
        guard let error = error as? DecodingError else { return "the message could not be read." }
        func path(_ keys: [any CodingKey]) -> String {
            var text = ""
            for key in keys {
                if let index = key.intValue, key.stringValue.hasPrefix("Index") {
                    text += "[\(index)]"
                } else {
                    text += (text.isEmpty ? "" : ".") + key.stringValue
                }
            }
            return "`\(text)`"
        }
        switch error {
        case .keyNotFound(let key, let context):
            return "\(path(context.codingPath + [key])) is missing."
        case .valueNotFound(_, let context):
            return "\(path(context.codingPath)) must not be null."
        case .typeMismatch(let type, let context):
            return "\(path(context.codingPath)) must be \(Self.name(of: type))."
        case .dataCorrupted(let context):
            return context.codingPath.isEmpty
                ? "the message is not valid JSON."
                : "\(path(context.codingPath)) is not valid: \(context.debugDescription)."
        @unknown default:
            return "the message could not be read."
        }
    }

    private static func name(of type: Any.Type) -> String {
        switch type {
        case is String.Type: return "a string"
        case is Bool.Type: return "a boolean"
        case is Int.Type, is UInt32.Type, is Int32.Type, is Int64.Type, is UInt64.Type, is UInt8.Type: return "an integer"
        case is Double.Type, is Float.Type: return "a number"
        default:
            let text = String(describing: type)
            if text.hasPrefix("Array") { return "a list" }
            if text.hasPrefix("Dictionary") { return "an object" }
            return "of another JSON type (\(text))"
        }
    }
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
