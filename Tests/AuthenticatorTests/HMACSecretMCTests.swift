import CBOR
import CTAP
import Testing

@testable import Authenticator

/// hmac-secret-mc (CTAP 2.2 §12.7): the outputs at creation are the ones a later assertion gives.
@Suite struct HMACSecretMCTests {
    @Test(arguments: bothProtocols)
    func creationOutputsMatchTheAssertionsOfTheSameSalts(version: PinUvAuthProtocolVersion) async throws {
        let h = Harness(presence: Array(repeating: .approved, count: 4))
        let platform = PlatformPIN(h, version)
        let salts = [UInt8](repeating: 0x11, count: 32) + [UInt8](repeating: 0x22, count: 32)
        let (platformKey, secret) = try await platform.keyAgreement()
        let saltEnc = try platform.implementation.encrypt(key: secret, plaintext: salts)
        let saltAuth = platform.implementation.authenticate(key: secret, message: saltEnc)
        let input: CBORValue = [
            1: platformKey.cbor, 2: .byteString(saltEnc), 3: .byteString(saltAuth), 4: CBORValue(version.rawValue)
        ]
        let made = try await h.makeCredential(
            Fixture.makeCredential(rk: false, extensions: ["hmac-secret": true, "hmac-secret-mc": input]))
        let authData = try AuthenticatorData(bytes: made.attestation.authenticatorData)
        let encrypted = try #require(authData.extensions?.mapValue?["hmac-secret-mc"]?.bytesValue)
        let atCreation = try platform.implementation.decrypt(key: secret, ciphertext: encrypted)
        #expect(atCreation.count == 64)
        let credential = try #require(authData.attestedCredentialData).credentialID
        let (status, atAssertion) = try await HMACSecretTests().secrets(
            h, version, credential: credential, salts: salts)
        #expect(status == .success)
        #expect(atAssertion == atCreation)
        // Without hmac-secret in the same request there is nothing to evaluate.
        let plain = try await h.makeCredential(Fixture.makeCredential(rk: false, extensions: ["hmac-secret-mc": input]))
        #expect(try AuthenticatorData(bytes: plain.attestation.authenticatorData).extensions == nil)
    }
}
