import Foundation
import PasskeyClient
import WebAuthn

/// A message to the extension (docs/browser-protocol.md, "Host → extension").
enum HostMessage: Sendable, Encodable {
    /// A request's answer: the members its type defines (a credential, capabilities, ...).
    case result(id: String, HostResult)
    /// A request that failed (a DOMException for the page), or a message that could not be parsed (id nil).
    /// `detail` is the sentence for the extension's console only (it may name the socket's path,
    /// and so the user): the background script logs it and never hands it to the page.
    case error(id: String?, name: String, message: String, unavailable: Bool, detail: String? = nil)
    /// A question to the person about the page's `request`, which the extension answers with a
    /// `choice` naming `id` (the host's).
    case question(id: String, request: String, rpId: String, Question)
    /// Progress of a request: the authenticator is working, or waits for a touch.
    case status(request: String, status: String)

    enum Question: Sendable {
        /// A modal account chooser (`suggest` when `conditional`).
        case choose(entries: [ChooserEntry], conditional: Bool)
        /// A PIN dialog (CTAP 2.1 §6.5.5.7.2 needs the PIN from the person): `retriesLeft` is the
        /// authenticator's count (§6.5.5.2, getPINRetries), or nil when unknown.
        case pin(retriesLeft: Int?)
        /// The person's consent to the ceremony, once its account is known (`confirm`), answered
        /// with index 0 (approved) or null (refused).
        case confirm(Consent)
    }

    struct ChooserEntry: Sendable, Encodable, Equatable {
        let label: String
        let displayName: String?
        /// base64url; null for a saved password (the protocol allows them; this host offers none).
        let credentialId: String?

        func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(label, forKey: .label)
            try c.encode(displayName, forKey: .displayName)
            try c.encode(credentialId, forKey: .credentialId)
        }
        enum CodingKeys: String, CodingKey { case label, displayName, credentialId }
    }

    static func error(id: String?, _ error: WebAuthnError) -> HostMessage {
        .error(
            id: id, name: error.name.rawValue, message: error.message, unavailable: Self.isUnavailable(error),
            detail: error.detail)
    }

    /// passkeyd could not be reached: nothing listens on the socket. The extension may then fall
    /// back to the browser's own WebAuthn. A socket that is not our own daemon's is not
    /// "unavailable": the person must see that something else sits where passkeyd should.
    static func isUnavailable(_ error: WebAuthnError) -> Bool {
        if case .transport(.unreachable)? = error.cause { return true }
        return false
    }

    private enum CodingKeys: String, CodingKey {
        case type, id, name, message, unavailable, detail, request, rpId, entries, status, retriesLeft
        case ceremony, account, displayName
    }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .result(let id, let result):
            try c.encode("result", forKey: .type)
            try c.encode(id, forKey: .id)
            try result.encode(to: encoder)
        case .error(let id, let name, let message, let unavailable, let detail):
            try c.encode("error", forKey: .type)
            try c.encode(id, forKey: .id)
            try c.encode(name, forKey: .name)
            try c.encode(message, forKey: .message)
            try c.encode(unavailable, forKey: .unavailable)
            try c.encodeIfPresent(detail, forKey: .detail)
        case .question(let id, let request, let rpId, let question):
            try c.encode(id, forKey: .id)
            try c.encode(request, forKey: .request)
            try c.encode(rpId, forKey: .rpId)
            switch question {
            case .choose(let entries, let conditional):
                try c.encode(conditional ? "suggest" : "choose", forKey: .type)
                try c.encode(entries, forKey: .entries)
            case .pin(let retriesLeft):
                try c.encode("pin", forKey: .type)
                try c.encode(retriesLeft, forKey: .retriesLeft)
            case .confirm(let consent):
                try c.encode("confirm", forKey: .type)
                switch consent {
                case .registration(_, let userName, let displayName):
                    try c.encode("create", forKey: .ceremony)
                    try c.encode(userName, forKey: .account)
                    try c.encode(displayName, forKey: .displayName)
                case .signIn(_, let account):
                    try c.encode("get", forKey: .ceremony)
                    try c.encode(consent.accountLabel, forKey: .account)
                    try c.encode(account?.displayName, forKey: .displayName)
                }
            }
        case .status(let request, let status):
            try c.encode("status", forKey: .type)
            try c.encode(request, forKey: .request)
            try c.encode(status, forKey: .status)
        }
    }

    /// The message's JSON; `withoutEscapingSlashes` keeps origins readable in logs and tests.
    var json: [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes, .sortedKeys]
        // Every member is a string, a boolean, a number or a WebAuthn JSON form: encoding cannot fail.
        return Array(
            (try? encoder.encode(self))
                ?? Data(
                    #"{"type":"error","id":null,"name":"UnknownError","message":"The host could not encode its reply.","unavailable":false}"#
                        .utf8))
    }
}

/// What a `result` carries besides its id, per request type.
enum HostResult: Sendable, Encodable {
    case registration(RegistrationResponseJSON)
    case assertion(AuthenticationResponseJSON)
    case capabilities([String: Bool])
    /// A signal's answer: no members.
    case empty
    case ping(version: String, daemon: Bool)

    private enum CodingKeys: String, CodingKey { case credential, capabilities, version, daemon, automation }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .registration(let credential): try c.encode(credential, forKey: .credential)
        case .assertion(let credential): try c.encode(credential, forKey: .credential)
        case .capabilities(let capabilities): try c.encode(capabilities, forKey: .capabilities)
        case .empty: break
        case .ping(let version, let daemon):
            try c.encode(version, forKey: .version)
            try c.encode(daemon, forKey: .daemon)
            // Which mode this host serves in, for the extension's options page and `doctor`.
            try c.encode(HostMode.automation, forKey: .automation)
        }
    }
}
