import CTAP

extension Authenticator {
    /// Collects user presence or fails with the status CTAP 2.1 assigns to each outcome.
    func collectPresence(_ request: UserActionRequest) async throws(CTAPStatus) {
        switch await presence.confirmPresence(request) {
        case .approved: break
        case .denied: throw .operationDenied
        case .timedOut: throw .userActionTimeout
        case .cancelled: throw .keepaliveCancel
        }
        if Task.isCancelled { throw .keepaliveCancel }
    }

    /// Whether built-in user verification is available (getInfo's `uv` option).
    var builtInUVConfigured: Bool { verifier?.isConfigured ?? false }

    /// Built-in user verification for the `uv` option (CTAP 2.1 §6.1.2 step 11, §6.2.2 step 7).
    /// A failed match uses up one of `uvRetries`; none left is `CTAP2_ERR_UV_BLOCKED`.
    /// Verification by the built-in method also establishes presence.
    func performBuiltInUV(_ request: UserActionRequest) async throws(CTAPStatus) {
        guard let verifier, verifier.isConfigured else { throw .invalidOption }
        var state = try await deviceState()
        guard state.uvRetries > 0 else { throw .uvBlocked }
        switch await verifier.verifyUser(request) {
        case .verified:
            if state.uvRetries != DeviceState.maxUVRetries {
                state.uvRetries = DeviceState.maxUVRetries
                try await saveDeviceState(state)
            }
        case .failed:
            state.uvRetries -= 1
            try await saveDeviceState(state)
            throw state.uvRetries == 0 ? .uvBlocked : .uvInvalid
        case .timedOut:
            throw .userActionTimeout
        case .cancelled:
            throw .keepaliveCancel
        }
        if Task.isCancelled { throw .keepaliveCancel }
    }

    /// Whether the device is protected by some form of user verification (CTAP 2.1 §6.1.2 step 11).
    func isProtectedByUV() async throws(CTAPStatus) -> Bool {
        if builtInUVConfigured { return true }
        return try await deviceState().pinHash != nil
    }

    /// CTAP 2.1 §6.1.2 step 1 / §6.2.2 step 1: a zero-length pinUvAuthParam is a platform
    /// probing which authenticator the user touches; answer after presence.
    func answerPinUvAuthProbe(_ request: UserActionRequest) async throws(CTAPStatus) -> Never {
        try await collectPresence(request)
        throw try await deviceState().pinHash == nil ? .pinNotSet : .pinInvalid
    }

    /// Checks pinUvAuthParam's companion parameter (CTAP 2.1 §6.1.2 step 2): the protocol
    /// must be named and supported. No pinUvAuthToken has been issued yet, so the
    /// parameter cannot verify.
    func verifyPinUvAuthParam(_ param: [UInt8], protocolVersion: Int?) throws(CTAPStatus) {
        guard let protocolVersion else { throw .missingParameter }
        guard protocolVersion == 1 || protocolVersion == 2 else { throw .invalidParameter }
        throw .pinAuthInvalid
    }
}
