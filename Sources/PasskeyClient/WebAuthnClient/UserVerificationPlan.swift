import CTAP
import WebAuthn

/// How a ceremony verifies the user, decided from the RP's requirement and what the
/// authenticator offers (WebAuthn L3 §6.2.3; CTAP 2.1 §6.5).
enum UserVerificationMethod: Sendable {
    /// No user verification: presence only.
    case none
    /// The authenticator's built-in method through the `uv` option (authenticators without pinUvAuthToken).
    case builtIn
    /// A pinUvAuthToken, from built-in user verification or from the PIN (CTAP 2.1 §6.5.5.7).
    case token(PinUvAuthToken)

    var usesBuiltIn: Bool { if case .builtIn = self { return true } else { return false } }
}

extension WebAuthnClient {
    /// Picks and prepares user verification. `mustVerify` is set when the authenticator
    /// would refuse without it (a discoverable credential on a protected device).
    func planUserVerification(
        _ requirement: UserVerificationRequirement, info: GetInfoResponse, session: CTAP2Session,
        permissions: PinUvAuthTokenPermissions, rpID: String, mustVerify: Bool = false
    ) async throws(WebAuthnError) -> UserVerificationMethod {
        let builtIn = info.options["uv"] == true
        let pinSet = info.options["clientPin"] == true
        let wanted = requirement == .required || mustVerify || (requirement == .preferred && (builtIn || pinSet))
        guard wanted else { return .none }
        if builtIn {
            guard info.options["pinUvAuthToken"] == true else { return .builtIn }
            if let token = try await uvToken(
                info: info, session: session, permissions: permissions, rpID: rpID, pinFallback: pinSet)
            {
                return .token(token)
            }
        }
        if pinSet { return try await pinToken(info: info, session: session, permissions: permissions, rpID: rpID) }
        guard requirement == .required else { return .none }
        // A PIN-capable authenticator without a PIN: offer to set one, as browsers do.
        guard info.options["clientPin"] == false,
            let newPIN = await userAgent.chooseNewPIN(minimumLength: info.minPINLength ?? 4)
        else {
            throw .constraint("This authenticator cannot verify the user, and the site requires it.")
        }
        do {
            try await ClientPINSession(session: session, info: info).setPIN(newPIN)
        } catch {
            throw mapError(error, rpID: rpID)
        }
        return try await pinToken(info: info, session: session, permissions: permissions, rpID: rpID, knownPIN: newPIN)
    }

    /// A token from built-in user verification, tried as often as the authenticator suggests
    /// (`preferredPlatformUvAttempts`). When it keeps failing or is blocked, nil lets the
    /// caller fall back to the PIN, as a phone does when a fingerprint is not recognised.
    func uvToken(
        info: GetInfoResponse, session: CTAP2Session, permissions: PinUvAuthTokenPermissions,
        rpID: String, pinFallback: Bool
    ) async throws(WebAuthnError) -> PinUvAuthToken? {
        let pins: ClientPINSession
        do { pins = try ClientPINSession(session: session, info: info) } catch { throw mapError(error, rpID: rpID) }
        var lastFailure = CTAPStatus.uvInvalid
        for _ in 0..<max(1, info.preferredPlatformUvAttempts ?? 1) {
            do {
                let token = try await pins.tokenUsingUV(permissions: permissions, rpID: rpID)
                loggers.verification.info("user verified by the authenticator's built-in method")
                return token
            } catch .status(let status) where status == .uvInvalid || status == .uvBlocked {
                loggers.verification.notice(
                    "built-in user verification failed", metadata: ["status": "\(status.specName)"])
                lastFailure = status
                if status == .uvBlocked { break }
            } catch {
                throw mapError(error, rpID: rpID)
            }
        }
        guard pinFallback else { throw mapStatus(lastFailure, rpID: rpID) }
        return nil
    }

    /// Asks for the PIN until a token comes back, the person gives up, or the PIN blocks.
    func pinToken(
        info: GetInfoResponse, session: CTAP2Session, permissions: PinUvAuthTokenPermissions,
        rpID: String, knownPIN: String? = nil
    ) async throws(WebAuthnError) -> UserVerificationMethod {
        let pins: ClientPINSession
        do { pins = try ClientPINSession(session: session, info: info) } catch { throw mapError(error, rpID: rpID) }
        var pending = knownPIN
        while true {
            let pin: String
            if let known = pending {
                pin = known
                pending = nil
            } else {
                let retries: Int?
                do { retries = try await pins.pinRetries().retries } catch { throw mapError(error, rpID: rpID) }
                guard let entered = await userAgent.enterPIN(retriesLeft: retries) else {
                    throw .notAllowed("PIN entry was cancelled.")
                }
                pin = entered
            }
            do {
                let token = try await pins.tokenUsingPIN(pin, permissions: permissions, rpID: rpID)
                loggers.verification.info("user verified with PIN")
                return .token(token)
            } catch .status(.pinInvalid) {
                loggers.verification.notice("wrong PIN")
                continue
            } catch {
                throw mapError(error, rpID: rpID)
            }
        }
    }
}
