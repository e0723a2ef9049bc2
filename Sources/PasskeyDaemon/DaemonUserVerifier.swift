import Authenticator

/// The daemon's built-in `UserVerifier` (a simulated fingerprint), driven by `--uv`.
///
/// Built-in UV also establishes presence (CTAP 2.1 §6.5.5.7.3: the token it yields has its
/// userPresent flag set, so the request it authorises asks no touch). A real reader takes a
/// finger, so a person is there; the simulated one under `--uv auto` reads at once with nobody
/// there. So under `--uv auto` the touch is still asked as `--presence` says: with `--presence
/// prompt` a prompt comes whatever `--uv` says (issue 40 item 3, issue 43 item 1).
public struct DaemonUserVerifier: UserVerifier {
    public let mode: VerificationMode
    public let broker: PromptBroker
    /// The daemon's `--presence`, asked when the simulated reading stands in for a touch.
    public let presence: PresenceMode

    public init(mode: VerificationMode, broker: PromptBroker, presence: PresenceMode = .auto) {
        self.mode = mode
        self.broker = broker
        self.presence = presence
    }

    public var isConfigured: Bool { mode != .off }

    public func verifyUser(_ request: UserActionRequest) async -> VerificationOutcome {
        if Task.isCancelled { return .cancelled }
        switch mode {
        case .auto: return await presentToo(request)
        // A refusal counts as a failed match (CTAP 2.1 §6.5.5.7.3); `off` is never asked.
        case .deny, .off: return .failed
        case .prompt:
            // The person answers the fingerprint prompt: that answer is their presence too.
            switch await broker.ask(.uv, for: request) {
            case .approved: return .verified
            case .denied: return .failed
            case .timedOut: return .timedOut
            case .cancelled: return .cancelled
            }
        }
    }

    /// A reading that matches at once, after the touch `--presence` asks for. An enrolment's
    /// samples (CTAP 2.1 §6.7.4) are not a request's consent, so they are not asked. A refused
    /// touch is no failed match: it costs no uvRetries, and the request ends as a cancelled one.
    private func presentToo(_ request: UserActionRequest) async -> VerificationOutcome {
        guard presence != .auto, request.purpose != .fingerprintSample else { return .verified }
        switch await DaemonUserPresence(mode: presence, broker: broker).confirmPresence(request) {
        case .approved: return .verified
        case .denied, .cancelled: return .cancelled
        case .timedOut: return .timedOut
        }
    }
}
