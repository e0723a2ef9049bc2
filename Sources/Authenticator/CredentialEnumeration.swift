import CTAP

/// What the GetNext subcommands of credential management still have to return
/// (CTAP 2.1 §6.8.3, §6.8.5). A snapshot taken at Begin: any other command ends it,
/// so nothing can change under it, and it lapses if the platform stops asking.
enum CredentialEnumeration: Sendable {
    case rps(remaining: [PublicKeyCredentialRpEntity], lastAnswerAt: ContinuousClock.Instant)
    case credentials(remaining: [CredentialSource], lastAnswerAt: ContinuousClock.Instant)

    var lastAnswerAt: ContinuousClock.Instant {
        switch self {
        case .rps(_, let at), .credentials(_, let at): return at
        }
    }
}
