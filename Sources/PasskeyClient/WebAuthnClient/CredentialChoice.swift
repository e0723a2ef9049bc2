/// A passkey the authenticator holds for an RP, as an account picker shows it.
public struct PasskeyAccount: Sendable, Hashable {
    public let credentialID: [UInt8]
    public let userHandle: [UInt8]?
    /// The user name, when the authenticator revealed it (only after user verification, CTAP 2.1 §6.2.2).
    public let name: String?
    public let displayName: String?

    public init(credentialID: [UInt8], userHandle: [UInt8]?, name: String?, displayName: String?) {
        self.credentialID = credentialID
        self.userHandle = userHandle
        self.name = name
        self.displayName = displayName
    }
}

/// A saved password the app offers next to passkeys ("passkey or password").
public struct PasswordCredential: Sendable, Hashable {
    public let user: String
    public let password: String

    public init(user: String, password: String) {
        self.user = user
        self.password = password
    }
}

/// One line of an account picker or an AutoFill suggestion bar.
public enum CredentialChoice: Sendable, Hashable {
    case passkey(PasskeyAccount)
    case password(PasswordCredential)

    /// What the line shows: the user name, else the display name, else a placeholder.
    public var label: String {
        switch self {
        case .passkey(let account): return account.name ?? account.displayName ?? "Passkey"
        case .password(let password): return password.user
        }
    }
}
