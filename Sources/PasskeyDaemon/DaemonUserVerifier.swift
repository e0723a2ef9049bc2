import Authenticator
import PasskeydMacros

/// The daemon's built-in `UserVerifier` (a simulated fingerprint), driven by `--uv`.
@MemberwiseInit
public struct DaemonUserVerifier: UserVerifier {
    public let mode: VerificationMode
    public let broker: PromptBroker

    public var isConfigured: Bool { mode != .off }

    public func verifyUser(_ request: UserActionRequest) async -> VerificationOutcome {
        if Task.isCancelled { return .cancelled }
        switch mode {
        case .auto: return .verified
        // A refusal counts as a failed match (CTAP 2.1 §6.5.5.7.3); `off` is never asked.
        case .deny, .off: return .failed
        case .prompt:
            switch await broker.ask(.uv, rpID: request.rpID) {
            case .approved: return .verified
            case .denied: return .failed
            case .timedOut: return .timedOut
            case .cancelled: return .cancelled
            }
        }
    }
}
