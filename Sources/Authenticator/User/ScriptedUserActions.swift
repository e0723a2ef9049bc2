/// User presence that answers from a script: each request takes the next outcome,
/// and the last one repeats. `always(.approved)` is a test authenticator that
/// never needs a touch; `always(.denied)` one nobody touches.
public actor ScriptedPresence: UserPresence {
    private var script: UserActionScript<PresenceOutcome>
    /// Every request seen, in order, so tests can tell whether presence was asked.
    public var requests: [UserActionRequest] { script.requests }

    public init(_ script: [PresenceOutcome]) {
        self.script = UserActionScript(script, asking: "presence")
    }

    public static func always(_ outcome: PresenceOutcome) -> ScriptedPresence {
        ScriptedPresence([outcome])
    }

    public func confirmPresence(_ request: UserActionRequest) -> PresenceOutcome {
        script.answer(request)
    }
}

/// Built-in user verification that answers from a script, like `ScriptedPresence`.
public actor ScriptedVerifier: UserVerifier {
    private var script: UserActionScript<VerificationOutcome>
    public var requests: [UserActionRequest] { script.requests }
    public nonisolated let isConfigured: Bool

    public init(_ script: [VerificationOutcome], configured: Bool = true) {
        self.script = UserActionScript(script, asking: "verification")
        self.isConfigured = configured
    }

    public static func always(_ outcome: VerificationOutcome) -> ScriptedVerifier {
        ScriptedVerifier([outcome])
    }

    public func verifyUser(_ request: UserActionRequest) -> VerificationOutcome {
        script.answer(request)
    }
}

/// The outcomes a scripted user gives, in order with the last one repeating, and the
/// requests that took them.
struct UserActionScript<Outcome: Sendable>: Sendable {
    private var outcomes: [Outcome]
    private(set) var requests: [UserActionRequest] = []

    init(_ outcomes: [Outcome], asking what: String) {
        precondition(!outcomes.isEmpty, "a \(what) script needs at least one outcome")
        self.outcomes = outcomes
    }

    /// The next outcome, for `request`.
    mutating func answer(_ request: UserActionRequest) -> Outcome {
        requests.append(request)
        return outcomes.count > 1 ? outcomes.removeFirst() : outcomes[0]
    }
}
