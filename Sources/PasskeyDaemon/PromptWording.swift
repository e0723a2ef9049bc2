import Authenticator

/// What a prompt says to the person: what is asked, by which program, for which relying party (or
/// ssh application, "ssh:…") and account, so a request the person did not start can be refused.
public struct PromptWording: Sendable, Equatable {
    /// One line: the action ("Sign in to github.com?").
    public var summary: String
    /// Who asks and for what, as plain text (a notification server may read markup: `markupBody`).
    public var body: String

    public init(_ prompt: PromptBroker.Prompt) {
        let site = prompt.rpID.map { $0.hasPrefix("ssh:") ? "ssh key \($0)" : $0 }
        summary = Self.action(prompt.purpose, site: site)
        var lines: [String] = []
        lines.append("\(prompt.requester?.program ?? "A program") asks passkeyd to \(Self.verb(prompt.purpose)).")
        if let site { lines.append("For: \(site)") }
        if let account = prompt.account { lines.append("Account: \(account)") }
        lines.append("Allow only if you started this.")
        body = lines.joined(separator: "\n")
    }

    /// The Desktop Notifications Specification lets a server read the body as markup ("body-markup"):
    /// a program's name or an RP ID must not become formatting, so `&`, `<` and `>` are escaped.
    public var markupBody: String {
        body.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;")
    }

    private static func action(_ purpose: UserActionRequest.Purpose?, site: String?) -> String {
        let place = site.map { " \($0)" } ?? ""
        switch purpose {
        case .makeCredential: return "Create a passkey for\(site.map { " \($0)" } ?? " a site")?"
        case .getAssertion: return "Sign in\(site.map { " to \($0)" } ?? "")?"
        case .credentialExcluded: return "Confirm a passkey for\(site.map { " \($0)" } ?? " a site") exists?"
        case .reset: return "Erase every passkey (reset)?"
        case .selection: return "Use passkeyd as the security key?"
        case .credentialManagement: return "Manage passkeys?"
        case .pinUvAuthToken: return "Use passkeyd\(site.map { " for \($0)" } ?? "")?"
        case .fingerprintSample: return "Read a fingerprint sample?"
        case nil: return "Confirm presence\(place)?"
        }
    }

    private static func verb(_ purpose: UserActionRequest.Purpose?) -> String {
        switch purpose {
        case .makeCredential: return "create a passkey"
        case .getAssertion: return "sign in"
        case .credentialExcluded: return "say whether a passkey exists"
        case .reset: return "erase every passkey"
        case .selection: return "be the security key it uses"
        case .credentialManagement: return "manage its passkeys"
        case .pinUvAuthToken: return "verify you"
        case .fingerprintSample: return "read a fingerprint sample"
        case nil: return "confirm you are there"
        }
    }
}
