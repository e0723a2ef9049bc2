/// What the person is asked to approve before a ceremony spends their presence: WebAuthn L3
/// §5.1.3 step 20 and §5.1.4.1 step 18 leave "user consent" to the client, and a browser asks it
/// naming the site and the account. The client asks after the account is known (after the
/// chooser, never before), so the question names what will really be signed.
public enum Consent: Sendable, Hashable {
    /// A new passkey for `userName` on `rpID`.
    case registration(rpID: String, userName: String, displayName: String)
    /// A sign-in to `rpID`, with `account` when the authenticator revealed it (nil: the
    /// authenticator decides which of the allowed credentials signs).
    case signIn(rpID: String, account: PasskeyAccount?)

    /// The RP ID the ceremony is for.
    public var rpID: String {
        switch self {
        case .registration(let rpID, _, _), .signIn(let rpID, _): return rpID
        }
    }

    /// The account's line, as a chooser shows it; nil for a sign-in whose account is unknown or
    /// nameless (the authenticator reveals names only after user verification, CTAP 2.1 §6.2.2).
    public var accountLabel: String? {
        switch self {
        case .registration(_, let userName, _): return userName
        case .signIn(_, let account): return account.flatMap { $0.name ?? $0.displayName }
        }
    }

    /// The question in one sentence, for user agents that only confirm.
    public var question: String {
        switch self {
        case .registration(let rpID, let userName, _): return "Create a passkey for \(userName) on \(rpID)?"
        case .signIn(let rpID, _):
            guard let label = accountLabel else { return "Sign in to \(rpID) with a passkey?" }
            return "Sign in to \(rpID) as \(label)?"
        }
    }
}
