import CTAP

/// Using the pinUvAuthToken (CTAP 2.1 §6.5.2.2, §6.1.2 steps 1–2 and 11, §6.2.2 steps 1–2
/// and 6, §6.8.1): the pinUvAuthParam probe, verify(token, message, param), permissions,
/// RP binding and the token's flags.
extension Authenticator {
    /// CTAP 2.1 §6.1.2 step 1 / §6.2.2 step 1: a zero-length pinUvAuthParam is a platform
    /// probing which authenticator the user touches; answer after presence.
    func answerPinUvAuthProbe(_ request: UserActionRequest) async throws(CTAPStatus) -> Never {
        try await collectPresence(request)
        throw try await deviceState().pinHash == nil ? .pinNotSet : .pinInvalid
    }

    /// Steps 1–2 of makeCredential and getAssertion (CTAP 2.1 §6.1.2, §6.2.2): a zero-length
    /// pinUvAuthParam is a probe answered after presence; otherwise its protocol must be named
    /// (`CTAP2_ERR_MISSING_PARAMETER`) and supported (`CTAP1_ERR_INVALID_PARAMETER`).
    func pinUvAuthProtocol(for param: [UInt8]?, _ number: Int?, probe: UserActionRequest) async throws(CTAPStatus)
        -> PinUvAuthProtocolVersion?
    {
        guard let param else { return nil }
        if param.isEmpty { try await answerPinUvAuthProbe(probe) }
        // CTAP 2.0 §5.1 step 7 and 2.1 §6.1.2 step 2 answer these differently.
        return try pinUvAuthProtocol(
            number, missing: configuration.rules.missingPinProtocol,
            unsupported: configuration.rules.unsupportedPinProtocol)
    }

    /// User verification for makeCredential (§6.1.2 step 11) and getAssertion (§6.2.2 steps 6–7):
    /// by the pinUvAuthToken when a pinUvAuthParam came, else by the built-in method when
    /// `uv` asked for it. Returns whether the user was verified and whether presence is
    /// already established (the token's flag, or the built-in method's touch).
    func verifyUser(
        pinUvAuthParam param: [UInt8]?, protocol version: PinUvAuthProtocolVersion?, requestsUV: Bool,
        clientDataHash: [UInt8], permission: PinUvAuthTokenPermissions, rpID: String,
        purpose: UserActionRequest, wantsPresence: Bool
    ) async throws(CTAPStatus) -> (verified: Bool, present: Bool) {
        if let version, let param {
            try verifyPinUvAuthParam(
                param, protocol: version, clientDataHash: clientDataHash, permission: permission, rpID: rpID)
            // Under a `deny` fault the token's presence does not count: presence is asked, and refused.
            return (true, wantsPresence && tokenUserPresent() && !Self.faults.deniesPresence)
        }
        if requestsUV {
            try await performBuiltInUV(purpose)
            return (true, wantsPresence)
        }
        return (false, false)
    }

    /// Authorises a makeCredential or getAssertion with the pinUvAuthToken
    /// (CTAP 2.1 §6.1.2 step 11.1, §6.2.2 step 6.1): verify(pinUvAuthToken,
    /// clientDataHash, pinUvAuthParam), then the permission, the permissions RP ID and
    /// the userVerified flag. Every failure is `CTAP2_ERR_PIN_AUTH_INVALID`. A token
    /// with no permissions RP ID is bound to this one by its first use.
    func verifyPinUvAuthParam(
        _ param: [UInt8], protocol version: PinUvAuthProtocolVersion, clientDataHash: [UInt8],
        permission: PinUvAuthTokenPermissions, rpID: String
    ) throws(CTAPStatus) {
        let token = try authorize(param, protocol: version, message: clientDataHash, permission: permission)
        guard configuration.rules.tokenUse.bindsToRP else { return }
        if let bound = token.rpID, bound != rpID { throw .pinAuthInvalid }
        guard token.userVerifiedFlagValue else { throw .pinAuthInvalid }
        if token.rpID == nil { pinUV.token?.rpID = rpID }
    }

    /// The checks every use of the pinUvAuthToken starts with (CTAP 2.1 §6.1.2 step 11.1,
    /// §6.2.2 step 6.1, §6.8.1): a token in use, of this protocol, whose MAC over `message`
    /// verifies and which holds `permission`; it is then marked used. Every failure is
    /// `CTAP2_ERR_PIN_AUTH_INVALID`.
    /// `legacyAllowed`: a getPinToken token stands in for `permission` (the preview command).
    func authorize(
        _ param: [UInt8], protocol version: PinUvAuthProtocolVersion, message: [UInt8],
        permission: PinUvAuthTokenPermissions, legacyAllowed: Bool = false
    ) throws(CTAPStatus) -> PinUvAuthTokenState {
        var token = try tokenInUse()
        guard token.authProtocol == version else { throw .pinAuthInvalid }
        try version.implementation.verify(key: token.key, message: message, signature: param)
        guard token.permissions.contains(permission) || (legacyAllowed && token.isLegacy) else { throw .pinAuthInvalid }
        token.markUsed()
        pinUV.token = token
        return token
    }

    /// The pinUvAuthToken if one is in use; the usage timer observer retires an expired
    /// one (CTAP 2.1 §6.5.2.2). None is `CTAP2_ERR_PIN_AUTH_INVALID`.
    func tokenInUse() throws(CTAPStatus) -> PinUvAuthTokenState {
        guard let token = pinUV.token else { throw .pinAuthInvalid }
        guard
            !configuration.rules.tokenUse.expires
                || token.isInUse(at: configuration.now(), limits: configuration.pinUvAuthTokenLimits)
        else {
            pinUV.token = nil
            throw .pinAuthInvalid
        }
        return token
    }

    /// getUserPresentFlagValue() of the token a request just used.
    func tokenUserPresent() -> Bool {
        pinUV.token?.userPresentFlagValue(at: configuration.now(), limits: configuration.pinUvAuthTokenLimits) ?? false
    }

    /// clearUserPresentFlag(), clearUserVerifiedFlag(), clearPinUvAuthTokenPermissionsExceptLbw()
    /// once a request authorised by the token has collected presence (§6.1.2 step 14, §6.2.2 step 10).
    func consumeTokenAfterPresence() {
        guard configuration.rules.tokenUse.spentByPresence else { return }
        pinUV.token?.clearAfterUserPresence()
    }
}
