import CBOR
import CTAP
import Crypto
import Testing

@testable import Authenticator
@testable import PasskeyClient

extension PinUvAuthToken {
    /// The token's key, for tests that authenticate with it the wrong way or look for it in logs.
    var secret: SymmetricKey { key }
}

/// The platform's side of authenticatorClientPIN for one PIN/UV auth protocol.
///
/// What a correct platform does goes through PasskeyClient's real `ClientPINSession` over an
/// in-process transport, shown the authenticator's getInfo narrowed to `version` (and, for
/// getPinToken, to an authenticator without permissions) so both protocols and both token
/// subcommands are exercised. The few messages a correct platform never sends — a padded PIN
/// of the wrong length, a corrupted pinUvAuthParam, a shared secret replayed after a mismatch —
/// and reads whose exact fields a test checks (powerCycleState present) are built here from
/// the CTAP PIN types.
struct PlatformPIN {
    let harness: Harness
    let version: PinUvAuthProtocolVersion
    var implementation: any PinUvAuthProtocol { version.implementation }
    private let session: CTAP2Session

    init(_ harness: Harness, _ version: PinUvAuthProtocolVersion) {
        self.harness = harness
        self.version = version
        session = CTAP2Session(transport: InProcessTransport(device: harness.authenticator))
    }

    /// The real client, choosing `version` and getPinUvAuthTokenUsingPinWithPermissions
    /// (`permissions`) or getPinToken (CTAP 2.1 §6.5.5.1, §6.5.5.7).
    private func client(permissions: Bool = true) async throws -> ClientPINSession {
        var info = try await self.info()
        info.pinUvAuthProtocols = [version.rawValue]
        info.options["pinUvAuthToken"] = permissions
        return try ClientPINSession(session: session, info: info)
    }

    /// The status a client call ended with: success, or the authenticator's error.
    private func status<T>(_ call: () async throws(CTAP2Error) -> T) async throws -> (CTAPStatus, T?) {
        do throws(CTAP2Error) {
            return (.success, try await call())
        } catch {
            guard case .status(let status) = error else { throw error }
            return (status, nil)
        }
    }

    /// getKeyAgreement, then encapsulate: the platform key to send and the shared secret.
    func keyAgreement() async throws -> (platformKey: COSEKey, secret: SymmetricKey) {
        let (status, body) = try await harness.send(
            .clientPIN, ClientPINRequest(subCommand: .getKeyAgreement, pinUvAuthProtocol: version.rawValue).cbor)
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
        let client = try await client()
        return try await status { () async throws(CTAP2Error) in try await client.setPIN(pin) }.0
    }

    /// setPIN with a padded PIN of any length, and optionally a pinUvAuthParam that does not verify.
    func setPIN(padded: [UInt8], corruptMAC: Bool = false) async throws -> CTAPStatus {
        let (platformKey, secret) = try await keyAgreement()
        let newPinEnc = try implementation.encrypt(key: secret, plaintext: padded)
        var param = implementation.authenticate(key: secret, message: newPinEnc)
        if corruptMAC { param[0] ^= 1 }
        return try await harness.status(
            of: .clientPIN,
            ClientPINRequest(
                subCommand: .setPIN, pinUvAuthProtocol: version.rawValue, keyAgreement: platformKey,
                pinUvAuthParam: param, newPinEnc: newPinEnc
            ).cbor)
    }

    func changePIN(from old: String, to new: String) async throws -> CTAPStatus {
        let client = try await client()
        return try await status { () async throws(CTAP2Error) in try await client.changePIN(from: old, to: new) }.0
    }

    /// getPinToken (permissions nil) or getPinUvAuthTokenUsingPinWithPermissions; with
    /// `agreement`, a shared secret from an earlier getKeyAgreement instead of a fresh one.
    func token(
        pin: String, permissions: PinUvAuthTokenPermissions? = nil, rpID: String? = nil,
        agreement: (platformKey: COSEKey, secret: SymmetricKey)? = nil
    ) async throws -> (CTAPStatus, PinUvAuthToken?) {
        if let agreement { return try await replayedToken(pin: pin, agreement: agreement) }
        let client = try await client(permissions: permissions != nil)
        let (status, token) = try await status { () async throws(CTAP2Error) in
            try await client.tokenUsingPIN(pin, permissions: permissions ?? [], rpID: rpID)
        }
        return (status, Self.checked(token))
    }

    private static func checked(_ token: PinUvAuthToken?) -> PinUvAuthToken? {
        if let token { #expect(token.key.bitCount == 256, "one 32-byte token for both protocols") }
        return token
    }

    /// getPinToken under a shared secret the platform kept from before.
    private func replayedToken(pin: String, agreement: (platformKey: COSEKey, secret: SymmetricKey)) async throws -> (
        CTAPStatus, PinUvAuthToken?
    ) {
        let request = ClientPINRequest(
            subCommand: .getPinToken, pinUvAuthProtocol: version.rawValue, keyAgreement: agreement.platformKey,
            pinHashEnc: try implementation.encrypt(key: agreement.secret, plaintext: PINHash.of(pin)))
        let (status, body) = try await harness.send(.clientPIN, request.cbor)
        guard status == .success else { return (status, nil) }
        let response = try ClientPINResponse(cbor: try #require(body))
        let encrypted = try #require(response.pinUvAuthToken)
        let token = try implementation.decrypt(key: agreement.secret, ciphertext: encrypted)
        return (status, Self.checked(PinUvAuthToken(pinProtocol: implementation, key: SymmetricKey(data: token))))
    }

    /// getPinUvAuthTokenUsingUvWithPermissions.
    func tokenUsingUV(permissions: PinUvAuthTokenPermissions, rpID: String? = nil) async throws -> (
        CTAPStatus, PinUvAuthToken?
    ) {
        let client = try await client()
        let (status, token) = try await status { () async throws(CTAP2Error) in
            try await client.tokenUsingUV(permissions: permissions, rpID: rpID)
        }
        return (status, Self.checked(token))
    }

    /// A token that must be granted.
    func grantedToken(pin: String, permissions: PinUvAuthTokenPermissions? = nil, rpID: String? = nil) async throws
        -> PinUvAuthToken
    {
        let (status, token) = try await self.token(pin: pin, permissions: permissions, rpID: rpID)
        try #require(status == .success)
        return try #require(token)
    }

    /// pinUvAuthParam = authenticate(pinUvAuthToken, message).
    func param(_ token: PinUvAuthToken, _ message: [UInt8]) -> [UInt8] {
        token.authenticate(message)
    }

    /// pinRetries and powerCycleState exactly as sent (the client folds an absent
    /// powerCycleState into false).
    func pinRetries() async throws -> (retries: Int, powerCycleState: Bool?) {
        let (status, body) = try await harness.send(
            .clientPIN, ClientPINRequest(subCommand: .getPINRetries, pinUvAuthProtocol: version.rawValue).cbor)
        try #require(status == .success)
        let response = try ClientPINResponse(cbor: try #require(body))
        return (try #require(response.pinRetries), response.powerCycleState)
    }

    func uvRetries() async throws -> Int {
        try await client().uvRetries()
    }

    /// A makeCredential authorised by `token`.
    func makeCredential(
        _ token: PinUvAuthToken, rp: PublicKeyCredentialRpEntity = Fixture.rp,
        user: PublicKeyCredentialUserEntity = Fixture.user(1),
        rk: Bool = true, uv: Bool? = nil
    ) -> MakeCredentialRequest {
        var request = Fixture.makeCredential(rp: rp, user: user, rk: rk, uv: uv)
        request.pinUvAuthParam = param(token, Fixture.clientDataHash)
        request.pinUvAuthProtocol = version.rawValue
        return request
    }

    /// A getAssertion authorised by `token`.
    func getAssertion(_ token: PinUvAuthToken, rpID: String = Fixture.rp.id, up: Bool? = nil) -> GetAssertionRequest {
        var request = Fixture.getAssertion(rpID: rpID, up: up)
        request.pinUvAuthParam = param(token, Fixture.clientDataHash)
        request.pinUvAuthProtocol = version.rawValue
        return request
    }

    /// A credential management request authenticated with `token`, as python-fido2 computes it.
    func credentialManagement(
        _ subCommand: CredentialManagementSubcommand, _ params: CredentialManagementParameters? = nil,
        token: PinUvAuthToken
    ) -> CredentialManagementRequest {
        CredentialManagementRequest(
            subCommand: subCommand, subCommandParams: params, pinUvAuthProtocol: version.rawValue,
            pinUvAuthParam: param(token, CredentialManagementRequest.authenticatedMessage(subCommand, params)))
    }

    func info() async throws -> GetInfoResponse {
        try GetInfoResponse(cbor: try #require(try await harness.send(.getInfo).1))
    }
}

let bothProtocols: [PinUvAuthProtocolVersion] = [.one, .two]
