import Authenticator

/// The daemon's `UserPresence`, driven by its `--presence` mode.
public struct DaemonUserPresence: UserPresence {
    public let mode: PresenceMode
    public let broker: PromptBroker

    public init(mode: PresenceMode, broker: PromptBroker) {
        self.mode = mode
        self.broker = broker
    }

    public nonisolated(nonsending) func confirmPresence(_ request: UserActionRequest) async -> PresenceOutcome {
        if Task.isCancelled { return .cancelled }
        switch mode {
        case .auto: return .approved
        case .deny: return .denied
        case .prompt: return await broker.ask(.presence, rpID: request.rpID)
        }
    }
}
