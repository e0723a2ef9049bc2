import CTAP

extension Authenticator {
    /// authenticatorConfig (CTAP 2.1 §6.11). Nothing changes unless every check passes.
    func authenticatorConfig(_ request: AuthenticatorConfigRequest) async throws(CTAPStatus) {
        // §6.11.1 step 1: subcommands this device does not offer (no vendor prototype commands;
        // enterprise attestation only with an attestation certificate).
        let offered =
            request.subCommand == .enableEnterpriseAttestation
            ? isEnterpriseAttestationCapable(try await deviceState())
            : Self.configSubcommands.contains(request.subCommand)
        guard offered else { throw .invalidSubcommand }
        // Step 2: a device protected by user verification, or with alwaysUv on, takes config only
        // with a pinUvAuthToken holding acfg, over 32×0xff ‖ 0x0d ‖ subCommand ‖ subCommandParams.
        let state = try await deviceState()
        let protected = try await isProtectedByUV()
        if protected || state.alwaysUv == true {
            guard let param = request.pinUvAuthParam else { throw .puatRequired }
            guard request.pinUvAuthProtocol != nil else { throw .missingParameter }
            _ = try authorize(
                param, protocol: try pinUvAuthProtocol(request.pinUvAuthProtocol),
                message: request.authenticatedMessage, permission: .acfg)
        }
        switch request.subCommand {
        case .toggleAlwaysUv:
            // §6.11.2.
            let on = try await updateDeviceState { state in
                state.alwaysUv = !(state.alwaysUv ?? false)
                return state.alwaysUv == true
            }
            logger.notice("alwaysUv toggled", metadata: ["alwaysUv": "\(on)"])
        case .setMinPINLength:
            try await setMinPINLength(request.subCommandParams ?? SetMinPINLengthParameters())
        case .enableEnterpriseAttestation:
            try await enableEnterpriseAttestation()
        case .vendorPrototype:
            throw .invalidSubcommand
        }
    }

    /// The subcommands this device offers; getInfo's `authnrCfg` and `setMinPINLength` say so.
    static let configSubcommands: Set<AuthenticatorConfigSubcommand> = [.toggleAlwaysUv, .setMinPINLength]

    /// How many RP IDs setMinPINLength keeps for the minPinLength extension (getInfo 0x10).
    static let maxRPIDsForSetMinPINLength = 8

    /// setMinPINLength (§6.11.4); step numbers refer to that section.
    private func setMinPINLength(_ parameters: SetMinPINLengthParameters) async throws(CTAPStatus) {
        // Step 3: no more RP IDs than getInfo says.
        if let rpIDs = parameters.minPinLengthRPIDs, rpIDs.count > Self.maxRPIDsForSetMinPINLength {
            throw .invalidLength
        }
        let changed = try await updateDeviceState { state throws(CTAPStatus) in
            // Steps 1–2: absent keeps the current minimum, which may only grow; it cannot pass
            // the longest PIN there is (63 bytes, CTAP 2.1 §6.5.5.5 step 7).
            let newMinimum = parameters.newMinPINLength ?? state.minPINLength
            guard newMinimum >= state.minPINLength, newMinimum <= PINHash.maxPINBytes else { throw .pinPolicyViolation }
            // Step 4: forcing a change needs a PIN to change.
            if parameters.forceChangePin == true, state.pinHash == nil { throw .pinNotSet }
            // Step 5: a PIN shorter than the new minimum must change (one of unknown length too).
            state.minPINLength = newMinimum
            if state.pinHash != nil, (state.pinCodePoints ?? 0) < newMinimum { state.forcePINChange = true }
            // Steps 6–7.
            if parameters.forceChangePin == true { state.forcePINChange = true }
            if let rpIDs = parameters.minPinLengthRPIDs { state.minPinLengthRPIDs = rpIDs }
            return state.minPINLength
        }
        logger.notice("minimum PIN length set", metadata: ["minPINLength": "\(changed)"])
    }
}
