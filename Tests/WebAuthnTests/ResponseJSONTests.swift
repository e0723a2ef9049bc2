import CBOR
import CTAP
import Foundation
import Testing
import WebAuthn

@Suite struct ResponseJSONTests {
    struct Golden: Decodable {
        var credentialPublicKeyCOSE: String
        var registrationResponse: RegistrationResponseJSON
        var authenticationResponse: AuthenticationResponseJSON
    }

    static func golden(_ name: String) throws -> Golden {
        try JSONDecoder().decode(Golden.self, from: Fixture.data(name))
    }

    @Test(arguments: ["golden_es256_packed.json", "golden_ed25519_none.json"])
    func decodesResponsesWrittenByAnotherImplementation(name: String) throws {
        let golden = try Self.golden(name)
        let registration = golden.registrationResponse
        #expect(registration.id == Base64URL.encode(registration.rawId))
        #expect(registration.type == "public-key")
        #expect(registration.authenticatorAttachment == .crossPlatform)
        #expect(registration.response.transports == ["usb"])
        #expect(registration.clientExtensionResults.credProps?.rk == true)
        let authentication = golden.authenticationResponse
        #expect(authentication.rawId == registration.rawId)
        #expect(authentication.response.userHandle != nil)
    }

    /// The SPKI we derive from a COSE key must equal the one `cryptography` wrote for the same key.
    @Test(arguments: ["golden_es256_packed.json", "golden_ed25519_none.json"])
    func subjectPublicKeyInfoMatchesAnIndependentEncoder(name: String) throws {
        let golden = try Self.golden(name)
        let key = try COSEKey(cbor: CBORDecoder.decode(Base64URL.decode(golden.credentialPublicKeyCOSE)))
        #expect(key.subjectPublicKeyInfo == golden.registrationResponse.response.publicKey)
        #expect(key.algorithm.rawValue == golden.registrationResponse.response.publicKeyAlgorithm)
    }

    /// Built from the attestation object as a client would, the response equals the one the generator wrote.
    @Test(arguments: ["golden_es256_packed.json", "golden_ed25519_none.json"])
    func assemblesRegistrationResponseFromAttestationObject(name: String) throws {
        let golden = try Self.golden(name).registrationResponse
        let attestation = try AttestationObject(cbor: CBORDecoder.decode(golden.response.attestationObject))
        let built = try RegistrationResponseJSON(
            clientDataJSON: golden.response.clientDataJSON, attestationObject: attestation, transports: ["usb"],
            authenticatorAttachment: .crossPlatform, clientExtensionResults: .init(credProps: .init(rk: true)))
        #expect(built.id == golden.id)
        #expect(built.rawId == golden.rawId)
        #expect(built.response.authenticatorData == golden.response.authenticatorData)
        #expect(built.response.publicKey == golden.response.publicKey)
        #expect(built.response.publicKeyAlgorithm == golden.response.publicKeyAlgorithm)
        // Our CBOR is canonical, as the generator's is: byte-identical attestation objects.
        #expect(built.response.attestationObject == golden.response.attestationObject)
    }

    @Test func responsesRoundTripAndOmitAbsentMembers() throws {
        let assertion = AuthenticationResponseJSON(
            credentialID: [1, 2, 3], clientDataJSON: [4], authenticatorData: [5],
            signature: [6], userHandle: nil)
        let data = try JSONEncoder().encode(assertion)
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(object["id"] as? String == "AQID")
        #expect(object["authenticatorAttachment"] == nil)
        #expect(object["clientExtensionResults"] is [String: Any])
        let response = try #require(object["response"] as? [String: Any])
        #expect(Set(response.keys) == ["clientDataJSON", "authenticatorData", "signature"])
        #expect(try JSONDecoder().decode(AuthenticationResponseJSON.self, from: data) == assertion)
    }

    @Test func nullUserHandleAndUnknownAttachmentDecodeAsAbsent() throws {
        let json = #"""
            {"id":"AQ","rawId":"AQ","type":"public-key","authenticatorAttachment":"wristwatch","clientExtensionResults":{"futureExt":1},
             "response":{"clientDataJSON":"AA","authenticatorData":"AA","signature":"AA","userHandle":null}}
            """#
        let response = try JSONDecoder().decode(AuthenticationResponseJSON.self, from: Data(json.utf8))
        #expect(response.response.userHandle == nil)
        #expect(response.authenticatorAttachment == nil)
        #expect(response.clientExtensionResults == .init())
    }

    /// RegistrationResponseJSON requires `transports` and `publicKeyAlgorithm` (WebAuthn L3 §5.1).
    @Test func registrationResponseRequiresSpecRequiredMembers() {
        let json = #"""
            {"id":"AQ","rawId":"AQ","type":"public-key","clientExtensionResults":{},
             "response":{"clientDataJSON":"AA","authenticatorData":"AA","attestationObject":"AA"}}
            """#
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(RegistrationResponseJSON.self, from: Data(json.utf8))
        }
    }
}
