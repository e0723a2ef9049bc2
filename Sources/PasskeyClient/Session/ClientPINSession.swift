import CBOR
import CTAP
import Crypto

/// The platform side of authenticatorClientPIN (CTAP 2.1 §6.5.5): PIN set and change,
/// retries, and pinUvAuthTokens for one PIN/UV auth protocol.
public struct ClientPINSession: Sendable {
    /// The session the subcommands are sent on.
    public let session: CTAP2Session
    /// The PIN/UV auth protocol every subcommand and token of this session uses (§6.5.4).
    public let pinProtocol: any PinUvAuthProtocol
    /// Whether the authenticator grants tokens with permissions (getInfo's `pinUvAuthToken`);
    /// otherwise tokens come from the CTAP 2.0 getPinToken.
    public let supportsPermissions: Bool

    /// Chooses the first protocol the authenticator lists that this client implements (§6.5.5.1).
    public init(session: CTAP2Session, info: GetInfoResponse) throws(CTAP2Error) {
        guard let version = info.pinUvAuthProtocols.lazy.compactMap(PinUvAuthProtocolVersion.init(rawValue:)).first
        else {
            throw .status(.invalidParameter)
        }
        self.session = session
        self.pinProtocol = version.implementation
        self.supportsPermissions = info.options["pinUvAuthToken"] == true
    }

    private func send(_ request: ClientPINRequest) async throws(CTAP2Error) -> ClientPINResponse? {
        guard let body = try await session.send(.clientPIN, request.cbor) else { return nil }
        do { return try ClientPINResponse(cbor: body) } catch { throw .malformedResponse }
    }

    private func request(_ subCommand: ClientPINSubcommand) -> ClientPINRequest {
        ClientPINRequest(subCommand: subCommand, pinUvAuthProtocol: pinProtocol.version.rawValue)
    }

    /// pinRetries and whether a power cycle is needed before trying again (§6.5.5.2).
    public func pinRetries() async throws(CTAP2Error) -> (retries: Int, powerCycleRequired: Bool) {
        guard let response = try await send(request(.getPINRetries)), let retries = response.pinRetries else {
            throw .malformedResponse
        }
        return (retries, response.powerCycleState ?? false)
    }

    /// uvRetries of the built-in verification method (§6.5.5.3).
    public func uvRetries() async throws(CTAP2Error) -> Int {
        guard let retries = try await send(request(.getUVRetries))?.uvRetries else { throw .malformedResponse }
        return retries
    }

    /// A fresh shared secret with the authenticator (§6.5.5.4).
    func sharedSecret() async throws(CTAP2Error) -> (platformKey: COSEKey, secret: SymmetricKey) {
        guard let peer = try await send(request(.getKeyAgreement))?.keyAgreement else { throw .malformedResponse }
        do {
            let (platformKey, secret) = try pinProtocol.encapsulate(peerKey: peer)
            return (platformKey, secret)
        } catch {
            throw .status(error)
        }
    }

    /// setPIN (§6.5.5.5): the new PIN padded to 64 bytes, encrypted, and authenticated.
    public func setPIN(_ pin: String) async throws(CTAP2Error) {
        let (platformKey, secret) = try await sharedSecret()
        var request = request(.setPIN)
        request.keyAgreement = platformKey
        do {
            let newPinEnc = try pinProtocol.encrypt(key: secret, plaintext: try Self.padded(pin))
            request.newPinEnc = newPinEnc
            request.pinUvAuthParam = pinProtocol.authenticate(key: secret, message: newPinEnc)
        } catch {
            throw .status(error)
        }
        _ = try await send(request)
    }

    /// changePIN (§6.5.5.6): proves the current PIN by its hash, then sets the new one.
    public func changePIN(from current: String, to new: String) async throws(CTAP2Error) {
        let (platformKey, secret) = try await sharedSecret()
        var request = request(.changePIN)
        request.keyAgreement = platformKey
        do {
            let newPinEnc = try pinProtocol.encrypt(key: secret, plaintext: try Self.padded(new))
            let pinHashEnc = try pinProtocol.encrypt(key: secret, plaintext: PINHash.of(current))
            request.newPinEnc = newPinEnc
            request.pinHashEnc = pinHashEnc
            request.pinUvAuthParam = pinProtocol.authenticate(key: secret, message: newPinEnc + pinHashEnc)
        } catch {
            throw .status(error)
        }
        _ = try await send(request)
    }

    /// A pinUvAuthToken from the PIN (§6.5.5.7.2), or from getPinToken on authenticators
    /// without permissions (§6.5.5.7.1).
    public func tokenUsingPIN(_ pin: String, permissions: PinUvAuthTokenPermissions, rpID: String?)
        async throws(CTAP2Error) -> PinUvAuthToken
    {
        let (platformKey, secret) = try await sharedSecret()
        var request = request(supportsPermissions ? .getPinUvAuthTokenUsingPinWithPermissions : .getPinToken)
        request.keyAgreement = platformKey
        do { request.pinHashEnc = try pinProtocol.encrypt(key: secret, plaintext: PINHash.of(pin)) } catch {
            throw .status(error)
        }
        if supportsPermissions {
            request.permissions = permissions
            request.rpId = rpID
        }
        return try await token(from: send(request), secret: secret)
    }

    /// A pinUvAuthToken from built-in user verification (§6.5.5.7.3).
    public func tokenUsingUV(permissions: PinUvAuthTokenPermissions, rpID: String?) async throws(CTAP2Error)
        -> PinUvAuthToken
    {
        let (platformKey, secret) = try await sharedSecret()
        var request = request(.getPinUvAuthTokenUsingUvWithPermissions)
        request.keyAgreement = platformKey
        request.permissions = permissions
        request.rpId = rpID
        return try await token(from: send(request), secret: secret)
    }

    private func token(from response: ClientPINResponse?, secret: SymmetricKey) throws(CTAP2Error) -> PinUvAuthToken {
        guard let encrypted = response?.pinUvAuthToken else { throw .malformedResponse }
        do {
            return PinUvAuthToken(
                pinProtocol: pinProtocol,
                key: SymmetricKey(data: try pinProtocol.decrypt(key: secret, ciphertext: encrypted)))
        } catch {
            throw .malformedResponse
        }
    }

    /// The padded PIN; one longer than 63 bytes cannot be sent (§6.5.5.5).
    static func padded(_ pin: String) throws(CTAPStatus) -> [UInt8] {
        guard let padded = PINHash.padded(pin) else { throw .pinPolicyViolation }
        return padded
    }
}

/// A pinUvAuthToken held by the platform, with the protocol that authenticates with it.
public struct PinUvAuthToken: Sendable {
    /// The protocol the token was obtained with, which authenticates with it.
    public let pinProtocol: any PinUvAuthProtocol
    let key: SymmetricKey

    /// pinUvAuthParam for a message: authenticate(token, message) (§6.5.6).
    public func authenticate(_ message: [UInt8]) -> [UInt8] {
        pinProtocol.authenticate(key: key, message: message)
    }

    /// The protocol's number, the `pinUvAuthProtocol` a request sends beside pinUvAuthParam.
    public var protocolVersion: Int { pinProtocol.version.rawValue }
}
