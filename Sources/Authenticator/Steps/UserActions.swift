import CTAP

/// User presence and built-in user verification (CTAP 2.1 §6: user presence; §6.5.5.7.3,
/// the `uv` option): what the authenticator asks of the person in front of it.
extension Authenticator {
    /// Collects user presence or fails with the status CTAP 2.1 assigns to each outcome.
    func collectPresence(_ request: UserActionRequest) async throws(CTAPStatus) {
        switch await askPresence(request) {
        case .approved: break
        case .denied: throw .operationDenied
        case .timedOut: throw .userActionTimeout
        case .cancelled: throw .keepaliveCancel
        }
        if Task.isCancelled { throw .keepaliveCancel }
    }

    /// Asks for a touch; meanwhile the transport tells the platform the device waits for the user.
    func askPresence(_ request: UserActionRequest) async -> PresenceOutcome {
        // A `deny` fault answers for the user, who is never asked.
        if Self.faults.deniesPresence { return .denied }
        await Self.progress(.userPresenceNeeded)
        let outcome = await presence.confirmPresence(request)
        await Self.progress(.processing)
        return outcome
    }

    /// Whether built-in user verification is available (getInfo's `uv` option). With a fingerprint
    /// sensor it is configured once a finger is enrolled (CTAP 2.1 §6.7).
    func builtInUVConfigured() async throws(CTAPStatus) -> Bool {
        guard let verifier, verifier.isConfigured else { return false }
        guard configuration.fingerprintSensor != nil else { return true }
        return try await !enrolledFingerprints().isEmpty
    }

    /// Built-in user verification for the `uv` option (CTAP 2.1 §6.1.2 step 11, §6.2.2 step 7).
    /// A failed match uses up one of `uvRetries`; none left is `CTAP2_ERR_UV_BLOCKED`.
    /// Verification by the built-in method also establishes presence.
    func performBuiltInUV(_ request: UserActionRequest) async throws(CTAPStatus) {
        guard let verifier, try await builtInUVConfigured() else { throw .invalidOption }
        let retries = try await deviceState().uvRetries
        guard retries > 0 else { throw .uvBlocked }
        // A `deny` fault: the user declined, which costs no retry.
        if Self.faults.deniesPresence { throw .operationDenied }
        await Self.progress(.userPresenceNeeded)
        let outcome = await verifier.verifyUser(request)
        await Self.progress(.processing)
        if outcome == .verified || outcome == .failed { pinUV.uvCountSinceLastPinEntry += 1 }
        switch outcome {
        case .verified:
            if retries != DeviceState.maxUVRetries {
                try await updateDeviceState { $0.uvRetries = DeviceState.maxUVRetries }
            }
        case .failed:
            let left = try await updateDeviceState { state -> Int in
                state.uvRetries = max(0, state.uvRetries - 1)
                return state.uvRetries
            }
            throw left == 0 ? .uvBlocked : .uvInvalid
        case .timedOut:
            throw .userActionTimeout
        case .cancelled:
            throw .keepaliveCancel
        }
        if Task.isCancelled { throw .keepaliveCancel }
    }

    /// Whether the device is protected by some form of user verification (CTAP 2.1 §6.1.2 step 11).
    func isProtectedByUV() async throws(CTAPStatus) -> Bool {
        if try await builtInUVConfigured() { return true }
        return try await deviceState().pinHash != nil
    }
}
