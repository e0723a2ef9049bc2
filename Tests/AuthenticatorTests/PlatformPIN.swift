import CBOR
import CTAP
import Crypto
import Testing
@testable import Authenticator

/// The platform's side of authenticatorClientPIN, built from the CTAP PIN types the way
/// python-fido2's `ClientPin` does it: key agreement, encrypted PIN and PIN hash,
/// pinUvAuthParam. Every call goes through `handle(_:)`.
struct PlatformPIN {
    let harness: Harness
    let version: PINUVAuthProtocolVersion
    var implementation: any PINUVAuthProtocol { version.implementation }

    init(_ harness: Harness, _ version: PINUVAuthProtocolVersion) {
        self.harness = harness
        self.version = version
    }

    /// getKeyAgreement, then encapsulate: the platform key to send and the shared secret.
    func keyAgreement() async throws -> (platformKey: COSEKey, secret: SymmetricKey) {
        let (status, body) = try await harness.send(.clientPIN, ClientPINRequest(subCommand: .getKeyAgreement, pinUvAuthProtocol: version.rawValue).cbor)
        try #require(status == .success)
        let response = try ClientPINResponse(cbor: try #require(body))
        let peerKey = try #require(response.keyAgreement)
        let (platformKey, secret) = try implementation.encapsulate(peerKey: peerKey)
        return (platformKey, secret)
    }

    /// The PIN as UTF-8, zero-padded to the 64 bytes the spec asks for.
    static func padded(_ pin: String, to length: Int = 64) -> [UInt8] {
        let bytes = Array(pin.utf8)
        return bytes + [UInt8](repeating: 0, count: max(0, length - bytes.count))
    }


    func setPIN(_ pin: String) async throws -> CTAPStatus {
        try await setPIN(padded: Self.padded(pin))
    }

    func setPIN(padded: [UInt8], corruptMAC: Bool = false) async throws -> CTAPStatus {
        let (platformKey, secret) = try await keyAgreement()
        let newPinEnc = try implementation.encrypt(key: secret, plaintext: padded)
        var param = implementation.authenticate(key: secret, message: newPinEnc)
        if corruptMAC { param[0] ^= 1 }
        return try await harness.status(of: .clientPIN, ClientPINRequest(
            subCommand: .setPIN, pinUvAuthProtocol: version.rawValue, keyAgreement: platformKey,
            pinUvAuthParam: param, newPinEnc: newPinEnc).cbor)
    }

    func changePIN(from old: String, to new: String) async throws -> CTAPStatus {
        let (platformKey, secret) = try await keyAgreement()
        let newPinEnc = try implementation.encrypt(key: secret, plaintext: Self.padded(new))
        let pinHashEnc = try implementation.encrypt(key: secret, plaintext: PINHash.of(old))
        let param = implementation.authenticate(key: secret, message: newPinEnc + pinHashEnc)
        return try await harness.status(of: .clientPIN, ClientPINRequest(
            subCommand: .changePIN, pinUvAuthProtocol: version.rawValue, keyAgreement: platformKey,
            pinUvAuthParam: param, newPinEnc: newPinEnc, pinHashEnc: pinHashEnc).cbor)
    }

    /// getPinToken (permissions nil) or getPinUvAuthTokenUsingPinWithPermissions.
    func token(pin: String, permissions: PinUvAuthTokenPermissions? = nil, rpID: String? = nil,
               agreement: (platformKey: COSEKey, secret: SymmetricKey)? = nil) async throws -> (CTAPStatus, SymmetricKey?) {
        let chosen: (platformKey: COSEKey, secret: SymmetricKey)
        if let agreement { chosen = agreement } else { chosen = try await keyAgreement() }
        let (platformKey, secret) = chosen
        let pinHashEnc = try implementation.encrypt(key: secret, plaintext: PINHash.of(pin))
        let request = ClientPINRequest(
            subCommand: permissions == nil ? .getPinToken : .getPinUvAuthTokenUsingPinWithPermissions,
            pinUvAuthProtocol: version.rawValue, keyAgreement: platformKey, pinHashEnc: pinHashEnc,
            permissions: permissions, rpId: rpID)
        return try await exchange(request, secret: secret)
    }

    /// getPinUvAuthTokenUsingUvWithPermissions.
    func tokenUsingUV(permissions: PinUvAuthTokenPermissions, rpID: String? = nil) async throws -> (CTAPStatus, SymmetricKey?) {
        let (platformKey, secret) = try await keyAgreement()
        let request = ClientPINRequest(
            subCommand: .getPinUvAuthTokenUsingUvWithPermissions, pinUvAuthProtocol: version.rawValue,
            keyAgreement: platformKey, permissions: permissions, rpId: rpID)
        return try await exchange(request, secret: secret)
    }

    /// A token that must be granted.
    func grantedToken(pin: String, permissions: PinUvAuthTokenPermissions? = nil, rpID: String? = nil) async throws -> SymmetricKey {
        let (status, token) = try await self.token(pin: pin, permissions: permissions, rpID: rpID)
        try #require(status == .success)
        return try #require(token)
    }

    private func exchange(_ request: ClientPINRequest, secret: SymmetricKey) async throws -> (CTAPStatus, SymmetricKey?) {
        let (status, body) = try await harness.send(.clientPIN, request.cbor)
        guard status == .success else { return (status, nil) }
        let response = try ClientPINResponse(cbor: try #require(body))
        let encrypted = try #require(response.pinUvAuthToken)
        let token = try implementation.decrypt(key: secret, ciphertext: encrypted)
        #expect(token.count == 32, "one 32-byte token for both protocols")
        return (status, SymmetricKey(data: token))
    }

    /// pinUvAuthParam = authenticate(pinUvAuthToken, message).
    func param(_ token: SymmetricKey, _ message: [UInt8]) -> [UInt8] {
        implementation.authenticate(key: token, message: message)
    }

    func pinRetries() async throws -> (retries: Int, powerCycleState: Bool?) {
        let (status, body) = try await harness.send(.clientPIN, ClientPINRequest(subCommand: .getPINRetries, pinUvAuthProtocol: version.rawValue).cbor)
        try #require(status == .success)
        let response = try ClientPINResponse(cbor: try #require(body))
        return (try #require(response.pinRetries), response.powerCycleState)
    }

    func uvRetries() async throws -> Int {
        let (status, body) = try await harness.send(.clientPIN, ClientPINRequest(subCommand: .getUVRetries).cbor)
        try #require(status == .success)
        let response = try ClientPINResponse(cbor: try #require(body))
        return try #require(response.uvRetries)
    }

    /// A makeCredential authorised by `token`.
    func makeCredential(_ token: SymmetricKey, rp: PublicKeyCredentialRpEntity = Fixture.rp, user: PublicKeyCredentialUserEntity = Fixture.user(1),
                        rk: Bool = true, uv: Bool? = nil) -> MakeCredentialRequest {
        var request = Fixture.makeCredential(rp: rp, user: user, rk: rk, uv: uv)
        request.pinUvAuthParam = param(token, Fixture.clientDataHash)
        request.pinUvAuthProtocol = version.rawValue
        return request
    }

    /// A getAssertion authorised by `token`.
    func getAssertion(_ token: SymmetricKey, rpID: String = Fixture.rp.id, up: Bool? = nil) -> GetAssertionRequest {
        var request = Fixture.getAssertion(rpID: rpID, up: up)
        request.pinUvAuthParam = param(token, Fixture.clientDataHash)
        request.pinUvAuthProtocol = version.rawValue
        return request
    }

    /// A credential management request authenticated with `token`, as python-fido2 computes it.
    func credentialManagement(_ subCommand: CredentialManagementSubcommand, _ params: CredentialManagementParameters? = nil,
                              token: SymmetricKey) -> CredentialManagementRequest {
        CredentialManagementRequest(
            subCommand: subCommand, subCommandParams: params, pinUvAuthProtocol: version.rawValue,
            pinUvAuthParam: param(token, CredentialManagementRequest.authenticatedMessage(subCommand, params)))
    }

    func info() async throws -> GetInfoResponse {
        try GetInfoResponse(cbor: try #require(try await harness.send(.getInfo).1))
    }
}

let bothProtocols: [PINUVAuthProtocolVersion] = [.one, .two]
