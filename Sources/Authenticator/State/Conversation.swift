import CTAP

/// State that spans commands, bound to the caller that started it (CTAP 2.1 §6.3,
/// §6.8.3, §6.8.5, §6.10.2). The next command from that caller either continues it or ends it;
/// a command from anyone else does neither.
enum Conversation: Sendable {
    /// authenticatorGetNextAssertion's remaining credentials.
    case assertions(PendingAssertions)
    /// Credential management's GetNext subcommands' remaining answers.
    case credentialEnumeration(CredentialEnumeration)
    /// authenticatorLargeBlobs' array written so far (CTAP 2.1 §6.10.2 step 4).
    case largeBlobWrite(LargeBlobWrite)
    /// authenticatorBioEnrollment's fingerprint being enrolled (CTAP 2.1 §6.7.4).
    case fingerprintEnrollment(FingerprintEnrollment)

    var assertions: PendingAssertions? {
        if case .assertions(let pending) = self { pending } else { nil }
    }

    var credentialEnumeration: CredentialEnumeration? {
        if case .credentialEnumeration(let enumeration) = self { enumeration } else { nil }
    }

    var largeBlobWrite: LargeBlobWrite? {
        if case .largeBlobWrite(let write) = self { write } else { nil }
    }

    var fingerprintEnrollment: FingerprintEnrollment? {
        if case .fingerprintEnrollment(let enrollment) = self { enrollment } else { nil }
    }

    /// When the caller last heard from it; each kind lapses after its own lifetime.
    var lastAnswerAt: ContinuousClock.Instant {
        switch self {
        case .assertions(let pending): pending.lastAnswerAt
        case .credentialEnumeration(let enumeration): enumeration.lastAnswerAt
        case .largeBlobWrite(let write): write.lastAnswerAt
        case .fingerprintEnrollment(let enrollment): enrollment.lastAnswerAt
        }
    }

    func hasLapsed(at now: ContinuousClock.Instant, _ configuration: Authenticator.Configuration) -> Bool {
        let lifetime =
            switch self {
            case .assertions: configuration.assertionStateLifetime
            case .credentialEnumeration: configuration.enumerationStateLifetime
            case .largeBlobWrite: configuration.largeBlobWriteLifetime
            case .fingerprintEnrollment: configuration.fingerprintEnrollmentLifetime
            }
        return now - lastAnswerAt > lifetime
    }
}

/// What authenticatorGetNextAssertion still has to return (CTAP 2.1 §6.3): the rest of
/// the discoverable credentials of one getAssertion, signed over the same client data
/// with the same flags. Only their IDs are kept: each key is unsealed when it signs.
struct PendingAssertions: Sendable {
    var remaining: [[UInt8]]
    let rpID: String
    let rpIDHash: [UInt8]
    let clientDataHash: [UInt8]
    let flags: AuthenticatorData.Flags
    /// The extensions' parsed inputs, answered for each credential in turn.
    let extensions: [PreparedAssertionExtension]
    /// Whether each response carries the credential's largeBlobKey (CTAP 2.1 §12.3).
    let returnsLargeBlobKey: Bool
    /// The timer restarts with every assertion returned.
    var lastAnswerAt: ContinuousClock.Instant
}

/// What the GetNext subcommands of credential management still have to return
/// (CTAP 2.1 §6.8.3, §6.8.5): the answers prepared at Begin, so no private key stays in
/// memory.
struct CredentialEnumeration: Sendable {
    enum Kind: Sendable { case relyingParties, credentials }

    let kind: Kind
    var remaining: [CredentialManagementResponse]
    var lastAnswerAt: ContinuousClock.Instant
}

/// A fingerprint being enrolled (CTAP 2.1 §6.7.4): its template, stored only once its last
/// good sample arrives; cancelled, lapsed or abandoned, nothing of it is kept.
struct FingerprintEnrollment: Sendable {
    let templateId: [UInt8]
    var remainingSamples: Int
    var lastAnswerAt: ContinuousClock.Instant
}
