import CTAP

/// What the GetNext subcommands of credential management still have to return
/// (CTAP 2.1 §6.8.3, §6.8.5): the answers prepared at Begin, so no private key stays in
/// memory. Any other command ends it, so nothing can change under it, and it lapses if
/// the platform stops asking.
struct CredentialEnumeration: Sendable {
    enum Kind: Sendable { case relyingParties, credentials }

    let kind: Kind
    var remaining: [CredentialManagementResponse]
    var lastAnswerAt: ContinuousClock.Instant
}
