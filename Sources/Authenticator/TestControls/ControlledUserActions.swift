/// The user's presence as the test controls have it (CONTROLS `automaticPresence`, Chrome's
/// `setAutomaticPresenceSimulation`): approved at once, or waiting for an answer as under
/// `--presence prompt`, or, with no override, as the daemon's `--presence` mode says. The one
/// place presence meets the test controls; the spec steps only see a `UserPresence`.
public struct ControlledUserPresence: UserPresence {
    let configured: any UserPresence
    /// What "not automatic" means: a presence that waits for an answer (PRESENCE).
    let waiting: any UserPresence
    let controls: TestControls

    public init(configured: any UserPresence, waiting: any UserPresence, controls: TestControls) {
        self.configured = configured
        self.waiting = waiting
        self.controls = controls
    }

    public nonisolated(nonsending) func confirmPresence(_ request: UserActionRequest) async -> PresenceOutcome {
        switch controls.automaticPresenceOverride {
        case nil: return await configured.confirmPresence(request)
        case true?: return Task.isCancelled ? .cancelled : .approved
        case false?: return await waiting.confirmPresence(request)
        }
    }
}

/// Built-in user verification as the test controls have it (CONTROLS `userVerified`, Chrome's
/// `setUserVerified`): a match or a failed match (CTAP 2.1 §6.5.5.7.3: each failure counts
/// against uvRetries), or, with no override, as `--uv` says. A device without built-in UV
/// (`--uv off`) has no verifier to wrap: the control then changes nothing.
public struct ControlledUserVerifier: UserVerifier {
    let configured: any UserVerifier
    let controls: TestControls

    public init(configured: any UserVerifier, controls: TestControls) {
        self.configured = configured
        self.controls = controls
    }

    public var isConfigured: Bool { configured.isConfigured }

    public func verifyUser(_ request: UserActionRequest) async -> VerificationOutcome {
        switch controls.userVerifiedOverride {
        case nil: return await configured.verifyUser(request)
        case let verified?:
            if Task.isCancelled { return .cancelled }
            return verified ? .verified : .failed
        }
    }
}
