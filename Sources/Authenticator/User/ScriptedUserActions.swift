/// User presence that answers from a script: each request takes the next outcome,
/// and the last one repeats. `always(.approved)` is a test authenticator that
/// never needs a touch; `always(.denied)` one nobody touches.
public actor ScriptedPresence: UserPresence {
    private var script: [PresenceOutcome]
    /// Every request seen, in order, so tests can tell whether presence was asked.
    public private(set) var requests: [UserActionRequest] = []

    public init(_ script: [PresenceOutcome]) {
        precondition(!script.isEmpty, "a presence script needs at least one outcome")
        self.script = script
    }

    public static func always(_ outcome: PresenceOutcome) -> ScriptedPresence {
        ScriptedPresence([outcome])
    }

    public func confirmPresence(_ request: UserActionRequest) -> PresenceOutcome {
        requests.append(request)
        return script.count > 1 ? script.removeFirst() : script[0]
    }
}

/// Built-in user verification that answers from a script, like `ScriptedPresence`.
public actor ScriptedVerifier: UserVerifier {
    private var script: [VerificationOutcome]
    public private(set) var requests: [UserActionRequest] = []
    public nonisolated let isConfigured: Bool

    public init(_ script: [VerificationOutcome], configured: Bool = true) {
        precondition(!script.isEmpty, "a verification script needs at least one outcome")
        self.script = script
        self.isConfigured = configured
    }

    public static func always(_ outcome: VerificationOutcome) -> ScriptedVerifier {
        ScriptedVerifier([outcome])
    }

    public func verifyUser(_ request: UserActionRequest) -> VerificationOutcome {
        requests.append(request)
        return script.count > 1 ? script.removeFirst() : script[0]
    }
}
