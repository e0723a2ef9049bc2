import PasskeydMacros

/// A passkey the authenticator holds for an RP, as an account picker shows it.
@MemberwiseInit
public struct PasskeyAccount: Sendable, Hashable {
    /// The credential the account signs with.
    public let credentialID: [UInt8]
    /// The account's user handle, when the authenticator returned it.
    public let userHandle: [UInt8]?
    /// The user name, when the authenticator revealed it (only after user verification, CTAP 2.1 §6.2.2).
    public let name: String?
    /// The display name, under the same condition as `name`.
    public let displayName: String?

    /// An account as a picker shows it.
}

/// A saved password the app offers next to passkeys ("passkey or password").
@MemberwiseInit
public struct PasswordCredential: Sendable, Hashable {
    /// The user name the password belongs to.
    public let user: String
    /// The password itself; never logged.
    public let password: String

    /// A saved password for `user`.
}

/// One line of an account picker or an AutoFill suggestion bar.
public enum CredentialChoice: Sendable, Hashable {
    /// A passkey on the authenticator.
    case passkey(PasskeyAccount)
    /// A saved password the app offered.
    case password(PasswordCredential)

    /// What the line shows: the user name, else the display name, else a placeholder.
    public var label: String {
        switch self {
        case .passkey(let account): return account.name ?? account.displayName ?? "Passkey"
        case .password(let password): return password.user
        }
    }
}
