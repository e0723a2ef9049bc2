import CBOR
import CTAP
import Foundation
import RelyingParty
import Testing
import WebAuthn

/// Responses built by an independent implementation (`Fixtures/webauthn/generate_fixtures.py`:
/// Python `cryptography` and `cbor2`, each vector accepted by py_webauthn 3.0.1 before it was written).
@Suite struct GoldenVectorTests {
    struct Golden: Decodable {
        var rpId: String
        var origin: String
        var credentialPublicKeyCOSE: String
        var registrationOptions: PublicKeyCredentialCreationOptionsJSON
        var registrationResponse: RegistrationResponseJSON
        var authenticationOptions: PublicKeyCredentialRequestOptionsJSON
        var authenticationResponse: AuthenticationResponseJSON
    }

    static func load(_ name: String) throws -> Golden {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let data = try Data(contentsOf: root.appendingPathComponent("Fixtures/webauthn").appendingPathComponent(name))
        return try JSONDecoder().decode(Golden.self, from: data)
    }

    @Test(arguments: ["golden_es256_packed.json", "golden_ed25519_none.json"])
    func verifiesRegistrationAndAuthentication(name: String) throws {
        let golden = try Self.load(name)
        let rp = RelyingParty(id: golden.rpId, name: "Example", origins: [golden.origin])
        let credential = try rp.verifyRegistration(golden.registrationResponse, options: golden.registrationOptions)
        #expect(
            credential.publicKeyCOSE
                == (try CBORDecoder.decode(Base64URL.decode(golden.credentialPublicKeyCOSE))).encoded)
        #expect(credential.userHandle == golden.registrationOptions.user.id)
        #expect(credential.signCount == 0)
        #expect(credential.backupEligible && !credential.backedUp)

        let result = try rp.verifyAuthentication(
            golden.authenticationResponse, options: golden.authenticationOptions,
            credential: { $0 == credential.id ? credential : nil })
        #expect(result.credential.signCount == 7)
        #expect(result.userVerified)
        #expect(result.userHandle == golden.registrationOptions.user.id)
    }

    @Test(arguments: ["golden_es256_packed.json", "golden_ed25519_none.json"])
    func rejectsTheGoldenAssertionReplayedAgainstItsOwnCounter(name: String) throws {
        let golden = try Self.load(name)
        let rp = RelyingParty(id: golden.rpId, name: "Example", origins: [golden.origin])
        var credential = try rp.verifyRegistration(golden.registrationResponse, options: golden.registrationOptions)
        credential.signCount = 7
        #expect(throws: VerificationError.signCountNotIncreased(stored: 7, received: 7)) {
            try rp.verifyAuthentication(
                golden.authenticationResponse, options: golden.authenticationOptions,
                credential: { _ in credential })
        }
    }
}
