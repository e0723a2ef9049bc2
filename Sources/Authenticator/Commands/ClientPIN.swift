import CTAP
import Crypto

extension Authenticator {
    /// authenticatorClientPIN (CTAP 2.1 §6.5.5). Nothing about the PIN, its hash, the
    /// shared secret or the token reaches the log: only outcomes and counters.
    func clientPIN(_ request: ClientPINRequest) async throws(CTAPStatus) -> ClientPINResponse? {
        switch request.subCommand {
        case .getPINRetries:
            return try await getPINRetries()
        case .getUVRetries:
            return ClientPINResponse(uvRetries: try await deviceState().uvRetries)
        case .getKeyAgreement:
            let version = try pinUvAuthProtocol(request.pinUvAuthProtocol)
            return ClientPINResponse(keyAgreement: try keyAgreement(version).getPublicKey())
        case .setPIN:
            try await setPIN(request)
            return nil
        case .changePIN:
            try await changePIN(request)
            return nil
        case .getPinToken:
            return try await getPinToken(request)
        case .getPinUvAuthTokenUsingPinWithPermissions:
            return try await getPinUvAuthTokenUsingPin(request)
        case .getPinUvAuthTokenUsingUvWithPermissions:
            return try await getPinUvAuthTokenUsingUv(request)
        }
    }

    /// The permissions this authenticator grants: be only with a fingerprint sensor, for
    /// without one it names a command the device does not have. Bits the spec does not define
    /// are ignored (§6.5.5.7.2 step 13).
    static let grantablePermissions: PinUvAuthTokenPermissions = [.mc, .ga, .cm, .lbw, .acfg, .be, .pcmr]
    var refusedPermissions: PinUvAuthTokenPermissions {
        !hasFingerprintReader || configuration.rules.withheldCommands.contains(.bioEnrollment) ? [.be] : []
    }

    /// A pinUvAuthProtocol this device supports; another is `CTAP1_ERR_INVALID_PARAMETER` (§6.5.5.1).
    func pinUvAuthProtocol(
        _ number: Int?, missing: CTAPStatus = .missingParameter,
        unsupported: CTAPStatus = .invalidParameter
    ) throws(CTAPStatus) -> PinUvAuthProtocolVersion {
        guard let number else { throw missing }
        guard let version = PinUvAuthProtocolVersion(rawValue: number),
            configuration.rules.pinUvAuthProtocols.contains(version)
        else { throw unsupported }
        return version
    }

    private func keyAgreement(_ version: PinUvAuthProtocolVersion) throws(CTAPStatus) -> PinUvAuthenticatorKeyAgreement
    {
        guard let agreement = pinUV.keyAgreements[version] else { throw .invalidParameter }
        return agreement
    }

    /// decapsulate(keyAgreement); a bad platform key is `CTAP1_ERR_INVALID_PARAMETER`.
    private func sharedSecret(_ version: PinUvAuthProtocolVersion, platformKey: COSEKey?) throws(CTAPStatus)
        -> SymmetricKey
    {
        guard let platformKey else { throw .missingParameter }
        return try keyAgreement(version).decapsulate(peerKey: platformKey)
    }

    /// getPINRetries (§6.5.5.2), with powerCycleState. With no PIN set there is nothing
    /// to count: `CTAP2_ERR_PIN_NOT_SET`, as hardware keys answer and python-fido2's
    /// device suite expects (the spec does not say).
    private func getPINRetries() async throws(CTAPStatus) -> ClientPINResponse {
        let state = try await deviceState()
        guard state.pinHash != nil else { throw .pinNotSet }
        return ClientPINResponse(pinRetries: state.pinRetries, powerCycleState: pinUV.needsPowerCycle)
    }

    /// setPIN (§6.5.5.5).
    private func setPIN(_ request: ClientPINRequest) async throws(CTAPStatus) {
        // Step 1: the parser checked for keyAgreement, newPinEnc and pinUvAuthParam. Step 2.
        let version = try pinUvAuthProtocol(request.pinUvAuthProtocol)
        // Step 3: setPIN only sets a first PIN; over an existing one it is CTAP2_ERR_PIN_AUTH_INVALID.
        let state = try await deviceState()
        guard state.pinHash == nil else { throw .pinAuthInvalid }
        // Step 4.
        let secret = try sharedSecret(version, platformKey: request.keyAgreement)
        guard let newPinEnc = request.newPinEnc, let param = request.pinUvAuthParam else { throw .missingParameter }
        // Step 5: verify(shared secret, newPinEnc, pinUvAuthParam).
        try version.implementation.verify(key: secret, message: newPinEnc, signature: param)
        // Steps 6–8.
        let newPin = try Self.decryptNewPIN(
            newPinEnc, version: version, secret: secret, minimumLength: state.minPINLength)
        // Step 9: store LEFT(SHA-256(newPin), 16) and start the retries afresh.
        let newHash = PINHash.of(newPin.bytes)
        try await updateDeviceState { state in
            state.pinHash = newHash
            state.pinCodePoints = newPin.codePoints
            state.pinRetries = DeviceState.maxPINRetries
        }
        logger.notice("PIN set")
    }

    /// changePIN (§6.5.5.6).
    private func changePIN(_ request: ClientPINRequest) async throws(CTAPStatus) {
        // Steps 1–2.
        let version = try pinUvAuthProtocol(request.pinUvAuthProtocol)
        try await checkPINUsable()
        // Step 4.
        let secret = try sharedSecret(version, platformKey: request.keyAgreement)
        guard let newPinEnc = request.newPinEnc, let pinHashEnc = request.pinHashEnc, let param = request.pinUvAuthParam
        else {
            throw .missingParameter
        }
        // Step 5: verify(shared secret, newPinEnc || pinHashEnc, pinUvAuthParam).
        try version.implementation.verify(key: secret, message: newPinEnc + pinHashEnc, signature: param)
        // Steps 6–7: the current PIN, paid for with a retry before it is compared.
        try await verifyCurrentPIN(pinHashEnc, version: version, secret: secret)
        // Steps 8–9: the new PIN, checked as setPIN checks it.
        let newPin = try Self.decryptNewPIN(
            newPinEnc, version: version, secret: secret, minimumLength: try await deviceState().minPINLength)
        let newHash = PINHash.of(newPin.bytes)
        try await updateDeviceState { state throws(CTAPStatus) in
            // A PIN whose change is forced cannot be "changed" to itself.
            if state.forcePINChange, let current = state.pinHash, ConstantTime.equals(current, newHash) {
                throw .pinPolicyViolation
            }
            state.pinHash = newHash
            state.pinCodePoints = newPin.codePoints
            state.forcePINChange = false
            // CTAP 2.2 §6.5.2.1: the persistent token does not outlive the PIN it was bought with.
            state.persistentToken = nil
        }
        // Step 10: resetPinUvAuthToken(): every token handed out under the old PIN is void.
        pinUV.token = nil
        logger.notice("PIN changed")
    }

    /// getPinToken (§6.5.5.7.1): the CTAP 2.0 token, with the mc and ga permissions (and what
    /// else the profile's rules give it) and no permissions RP ID (bound by its first use).
    private func getPinToken(_ request: ClientPINRequest) async throws(CTAPStatus) -> ClientPINResponse {
        let version = try pinUvAuthProtocol(request.pinUvAuthProtocol)
        // Step 3: the legacy subcommand takes neither permissions nor an RP ID.
        if request.permissions != nil || request.rpId != nil { throw .invalidParameter }
        return try await tokenUsingPIN(
            request, version: version, permissions: configuration.rules.legacyTokenPermissions, rpID: nil,
            isLegacy: true)
    }

    /// getPinUvAuthTokenUsingPinWithPermissions (§6.5.5.7.2).
    private func getPinUvAuthTokenUsingPin(_ request: ClientPINRequest) async throws(CTAPStatus) -> ClientPINResponse {
        // Steps 1–2.
        let version = try pinUvAuthProtocol(request.pinUvAuthProtocol)
        // Steps 3–4.
        let permissions = try checkRequestedPermissions(request.permissions)
        return try await tokenUsingPIN(request, version: version, permissions: permissions, rpID: request.rpId)
    }

    /// getPinUvAuthTokenUsingUvWithPermissions (§6.5.5.7.3).
    private func getPinUvAuthTokenUsingUv(_ request: ClientPINRequest) async throws(CTAPStatus) -> ClientPINResponse {
        // Steps 1–2.
        let version = try pinUvAuthProtocol(request.pinUvAuthProtocol)
        // Steps 3–4.
        let permissions = try checkRequestedPermissions(request.permissions)
        // Step 5: without built-in UV there is nothing to verify with.
        guard try await builtInUVConfigured() else { throw .notAllowed }
        // Step 6.
        let secret = try sharedSecret(version, platformKey: request.keyAgreement)
        // Steps 7–9: performBuiltInUv(); a failure spends one of uvRetries
        // (CTAP2_ERR_UV_INVALID, then CTAP2_ERR_UV_BLOCKED), a success restores them.
        try await performBuiltInUV(UserActionRequest(purpose: .pinUvAuthToken, rpID: request.rpId))
        if permissions == .pcmr { return try await issuePersistentToken(version, secret: secret) }
        // Steps 10–13: a new token, user present (built-in UV is a gesture), with its permissions.
        let token = PinUvAuthTokenState(
            authProtocol: version, permissions: permissions, rpID: request.rpId,
            userIsPresent: true, now: configuration.now())
        pinUV.token = token
        logger.info(
            "pinUvAuthToken issued after built-in user verification",
            metadata: ["permissions": "\(permissions.rawValue)"])
        return ClientPINResponse(pinUvAuthToken: try token.encrypted(with: secret))
    }

    /// Steps 3–4 of §6.5.5.7.2 and §6.5.5.7.3: no permissions at all is
    /// `CTAP1_ERR_INVALID_PARAMETER`; one for a command this device does not offer is
    /// `CTAP2_ERR_UNAUTHORIZED_PERMISSION`.
    func checkRequestedPermissions(_ requested: PinUvAuthTokenPermissions?) throws(CTAPStatus)
        -> PinUvAuthTokenPermissions
    {
        guard let requested else { throw .missingParameter }
        guard requested.rawValue != 0 else { throw .invalidParameter }
        guard requested.intersection(refusedPermissions).isEmpty else { throw .unauthorizedPermission }
        // CTAP 2.2 §6.5.5.7: the persistent token is read-only credential management and nothing
        // else, so pcmr comes alone (our reading: a set it cannot be is a bad parameter).
        if requested.contains(.pcmr), requested.intersection(Self.grantablePermissions) != .pcmr {
            throw .invalidParameter
        }
        return requested.intersection(Self.grantablePermissions)
    }

    /// The common tail of getPinToken and getPinUvAuthTokenUsingPinWithPermissions
    /// (§6.5.5.7.2 steps 5–15).
    private func tokenUsingPIN(
        _ request: ClientPINRequest, version: PinUvAuthProtocolVersion,
        permissions: PinUvAuthTokenPermissions, rpID: String?,
        isLegacy: Bool = false
    ) async throws(CTAPStatus) -> ClientPINResponse {
        try await checkPINUsable()
        let secret = try sharedSecret(version, platformKey: request.keyAgreement)
        guard let pinHashEnc = request.pinHashEnc else { throw .missingParameter }
        try await verifyCurrentPIN(pinHashEnc, version: version, secret: secret)
        // Step 10: a PIN that must change buys no token: CTAP2_ERR_PIN_INVALID, as hardware keys
        // answer and python-fido2's device suite (test_config.py) expects.
        if try await deviceState().forcePINChange { throw .pinInvalid }
        if permissions == .pcmr { return try await issuePersistentToken(version, secret: secret) }
        // Steps 11–14: resetPinUvAuthToken(), beginUsingPinUvAuthToken(userIsPresent: false),
        // permissions and the permissions RP ID. The old token is gone.
        let token = PinUvAuthTokenState(
            authProtocol: version, permissions: permissions, rpID: rpID,
            userIsPresent: false, now: configuration.now(), isLegacy: isLegacy, isPINDerived: true)
        pinUV.token = token
        logger.info("pinUvAuthToken issued after PIN", metadata: ["permissions": "\(permissions.rawValue)"])
        // Step 15.
        return ClientPINResponse(pinUvAuthToken: try token.encrypted(with: secret))
    }

    /// A new persistent pinUvAuthToken (CTAP 2.2 §6.5.2.1), replacing any earlier one; the
    /// volatile token is left as it was. The device identifier it reveals is made with the first.
    private func issuePersistentToken(_ version: PinUvAuthProtocolVersion, secret: SymmetricKey)
        async throws(CTAPStatus) -> ClientPINResponse
    {
        let token = PersistentPinUvAuthToken(key: SecureRandom.bytes(32), pinUvAuthProtocol: version.rawValue)
        let identifier = SecureRandom.bytes(16)
        try await updateDeviceState { state in
            state.persistentToken = token
            if state.deviceIdentifier == nil { state.deviceIdentifier = identifier }
        }
        logger.info(
            "persistent pinUvAuthToken issued", metadata: ["permissions": "\(PinUvAuthTokenPermissions.pcmr.rawValue)"])
        return ClientPINResponse(pinUvAuthToken: try token.encrypted(with: secret, protocol: version))
    }

    /// Before a PIN is tried: one must be set (`CTAP2_ERR_PIN_NOT_SET`), retries must
    /// remain (`CTAP2_ERR_PIN_BLOCKED`, until reset), and three mismatches since power-up
    /// need a power cycle first (`CTAP2_ERR_PIN_AUTH_BLOCKED`).
    private func checkPINUsable() async throws(CTAPStatus) {
        let state = try await deviceState()
        guard state.pinHash != nil else { throw .pinNotSet }
        guard state.pinRetries > 0 else { throw .pinBlocked }
        guard !pinUV.needsPowerCycle else { throw .pinAuthBlocked }
    }

    /// The current-PIN check of changePIN and the token subcommands (§6.5.5.7.2 steps 7–9):
    /// pinRetries goes down and is persisted BEFORE the comparison, so pulling the plug
    /// mid-check cannot buy a free guess. A mismatch regenerates the key agreement keys.
    private func verifyCurrentPIN(_ pinHashEnc: [UInt8], version: PinUvAuthProtocolVersion, secret: SymmetricKey)
        async throws(CTAPStatus)
    {
        // Step 7: decrement, durably.
        let (stored, retriesLeft) = try await updateDeviceState { state throws(CTAPStatus) -> ([UInt8], Int) in
            guard let stored = state.pinHash else { throw .pinNotSet }
            state.pinRetries -= 1
            return (stored, state.pinRetries)
        }
        // Step 8: compare LEFT(SHA-256(PIN), 16) in constant time.
        let presented = try version.implementation.decrypt(key: secret, ciphertext: pinHashEnc)
        guard ConstantTime.equals(presented, stored) else {
            pinUV.regenerateKeyAgreements()
            pinUV.consecutiveMismatches += 1
            logger.notice("wrong PIN", metadata: ["pinRetries": "\(retriesLeft)"])
            if retriesLeft == 0 { throw .pinBlocked }
            if pinUV.needsPowerCycle { throw .pinAuthBlocked }
            throw .pinInvalid
        }
        // Step 9: a correct PIN restores the retries.
        pinUV.consecutiveMismatches = 0
        pinUV.uvCountSinceLastPinEntry = 0
        try await updateDeviceState { $0.pinRetries = DeviceState.maxPINRetries }
    }

    /// A new PIN out of newPinEnc (§6.5.5.5 steps 6–8): exactly 64 bytes once decrypted
    /// (else `CTAP1_ERR_INVALID_PARAMETER`), trailing 0x00 padding dropped, then at least
    /// `minimumLength` Unicode code points and at most 63 bytes of UTF-8
    /// (else `CTAP2_ERR_PIN_POLICY_VIOLATION`).
    static func decryptNewPIN(
        _ newPinEnc: [UInt8], version: PinUvAuthProtocolVersion, secret: SymmetricKey,
        minimumLength: Int
    ) throws(CTAPStatus) -> (bytes: [UInt8], codePoints: Int) {
        var padded = try version.implementation.decrypt(key: secret, ciphertext: newPinEnc)
        defer { padded.withUnsafeMutableBytes { _ = $0.initializeMemory(as: UInt8.self, repeating: 0) } }
        guard padded.count == PINHash.paddedLength else { throw .invalidParameter }
        let pin = Array(padded[..<(padded.lastIndex { $0 != 0 }.map { $0 + 1 } ?? 0)])
        guard pin.count <= PINHash.maxPINBytes else { throw .pinPolicyViolation }
        guard let text = String(validating: pin, as: UTF8.self) else { throw .pinPolicyViolation }
        let codePoints = text.unicodeScalars.count
        guard codePoints >= max(minimumLength, 4) else { throw .pinPolicyViolation }
        return (pin, codePoints)
    }
}
