import CTAP

/// What authenticatorGetNextAssertion still has to return (CTAP 2.1 §6.3): the
/// rest of the discoverable credentials of one getAssertion, signed over the same
/// client data with the same flags.
struct PendingAssertions: Sendable {
    var remaining: [CredentialSource]
    let rpIDHash: [UInt8]
    let clientDataHash: [UInt8]
    let flags: AuthenticatorData.Flags
    /// The extensions' parsed inputs, answered for each credential in turn.
    let extensions: [PreparedAssertionExtension]
    /// The timer restarts with every assertion returned.
    var lastAssertionAt: ContinuousClock.Instant
}
