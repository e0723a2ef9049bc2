import WebAuthn

/// How a `get` request involves the person (WebAuthn L3 §5.1.4, Credential Management's
/// `mediation`; Apple's `preferImmediatelyAvailableCredentials`).
public enum Mediation: Sendable, Hashable {
    /// A modal request: an account picker when there is more than one account.
    case optional
    /// Like `.optional`: the person is always involved.
    case required
    /// AutoFill: silent discovery lists suggestions; the request completes when one is picked.
    case conditional
    /// Fails at once with NotAllowedError when nothing for the RP is available on this
    /// device, without showing anything; otherwise behaves as modal.
    case immediate
}

/// What a `get` request returns: a passkey assertion, or a saved password the person chose instead.
public enum GetResult: Sendable, Hashable {
    /// The assertion, to send to the relying party as JSON.
    case passkey(AuthenticationResponseJSON)
    /// The saved password the person chose.
    case password(PasswordCredential)
}
