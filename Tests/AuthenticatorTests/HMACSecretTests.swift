import CBOR
import CTAP
import Crypto
import Testing

@testable import Authenticator

/// hmac-secret (CTAP 2.1 §12.5), with the platform side played as python-fido2 does.
@Suite struct HMACSecretTests {
    let salt1 = [UInt8](repeating: 0x11, count: 32)
    let salt2 = [UInt8](repeating: 0x22, count: 32)

    func register(_ h: Harness, rk: Bool, hmacSecret: Bool = true) async throws -> [UInt8] {
        let response = try await h.makeCredential(
            Fixture.makeCredential(rk: rk, extensions: hmacSecret ? ["hmac-secret": true] : [:]))
        let authData = try AuthenticatorData(bytes: response.attestation.authenticatorData)
        #expect(authData.extensions?.mapValue?["hmac-secret"] == (hmacSecret ? .boolean(true) : nil))
        return try #require(authData.attestedCredentialData).credentialID
    }

    /// Asks for the secrets of `salts` and returns the decrypted outputs (nil when none came back).
    func secrets(
        _ h: Harness, _ version: PinUvAuthProtocolVersion, credential: [UInt8], salts: [UInt8],
        uv: Bool = false, corruptAuth: Bool = false
    ) async throws -> (CTAPStatus, [UInt8]?) {
        let platform = PlatformPIN(h, version)
        let (platformKey, secret) = try await platform.keyAgreement()
        let saltEnc = try platform.implementation.encrypt(key: secret, plaintext: salts)
        var saltAuth = platform.implementation.authenticate(key: secret, message: saltEnc)
        if corruptAuth { saltAuth[0] ^= 1 }
        var request = Fixture.getAssertion(allow: [credential], uv: uv ? true : nil)
        request.extensions = [
            "hmac-secret": [
                1: platformKey.cbor, 2: .byteString(saltEnc), 3: .byteString(saltAuth), 4: CBORValue(version.rawValue)
            ]
        ]
        let (status, body) = try await h.send(.getAssertion, request.cbor)
        guard status == .success, let body else { return (status, nil) }
        let authData = try AuthenticatorData(bytes: try GetAssertionResponse(cbor: body).authenticatorData)
        guard let encrypted = authData.extensions?.mapValue?["hmac-secret"]?.bytesValue else { return (status, nil) }
        return (status, try platform.implementation.decrypt(key: secret, ciphertext: encrypted))
    }

    @Test(arguments: bothProtocols)
    func outputsAreStablePerSaltAndCredential(version: PinUvAuthProtocolVersion) async throws {
        let h = Harness()
        for rk in [true, false] {
            let credential = try await register(h, rk: rk)
            let first = try #require(try await secrets(h, version, credential: credential, salts: salt1).1)
            #expect(first.count == 32)
            #expect(
                try await secrets(h, version, credential: credential, salts: salt1).1 == first, "same salt, same secret"
            )
            #expect(try await secrets(h, version, credential: credential, salts: salt2).1 != first)
            let both = try #require(try await secrets(h, version, credential: credential, salts: salt1 + salt2).1)
            #expect(both.count == 64)
            #expect(Array(both.prefix(32)) == first)
            let other = try await register(h, rk: rk)
            #expect(
                try await secrets(h, version, credential: other, salts: salt1).1 != first, "each credential has its own"
            )
        }
    }

    @Test(arguments: bothProtocols)
    func userVerificationSelectsTheOtherSecret(version: PinUvAuthProtocolVersion) async throws {
        let h = Harness(verifier: .always(.verified))
        let credential = try await register(h, rk: false)
        let without = try await secrets(h, version, credential: credential, salts: salt1).1
        let with = try await secrets(h, version, credential: credential, salts: salt1, uv: true).1
        #expect(without != nil && with != nil && without != with)
    }

    @Test func credentialsWithoutTheExtensionAnswerNoSecret() async throws {
        let h = Harness()
        let credential = try await register(h, rk: true, hmacSecret: false)
        let (status, output) = try await secrets(h, .two, credential: credential, salts: salt1)
        #expect(status == .success)
        #expect(output == nil)
    }

    @Test func aBadSaltAuthIsRefused() async throws {
        let h = Harness()
        let credential = try await register(h, rk: false)
        #expect(
            try await secrets(h, .two, credential: credential, salts: salt1, corruptAuth: true).0 == .pinAuthInvalid)
        #expect(
            try await secrets(h, .one, credential: credential, salts: [UInt8](repeating: 0, count: 48)).0
                == .invalidLength)
    }

    @Test func resetForgetsTheSecrets() async throws {
        let h = Harness()
        _ = try await register(h, rk: false)
        #expect(
            try GetInfoResponse(cbor: try #require(try await h.send(.getInfo).1)).extensions.contains("hmac-secret"))
        let credential = try await register(h, rk: true)
        #expect(try await secrets(h, .two, credential: credential, salts: salt1).1 != nil)
        #expect(try await h.status(of: .reset) == .success)
        #expect(try await secrets(h, .two, credential: credential, salts: salt1).0 == .noCredentials)
    }
}
