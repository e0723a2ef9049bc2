import Authenticator
import PasskeydMacros

/// The daemon's `UserPresence`, driven by its `--presence` mode.
@MemberwiseInit
public struct DaemonUserPresence: UserPresence {
    public let mode: PresenceMode
    public let broker: PromptBroker

    public nonisolated(nonsending) func confirmPresence(_ request: UserActionRequest) async -> PresenceOutcome {
        if Task.isCancelled { return .cancelled }
        switch mode {
        case .auto: return .approved
        case .deny: return .denied
        case .prompt: return await broker.ask(.presence, for: request)
        }
    }
}
