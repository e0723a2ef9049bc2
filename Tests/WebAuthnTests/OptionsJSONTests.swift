import Foundation
import Testing
import WebAuthn

@Suite struct OptionsJSONTests {
    @Test func decodesPyWebAuthnRegistrationOptions() throws {
        let options = try JSONDecoder().decode(
            PublicKeyCredentialCreationOptionsJSON.self,
            from: Fixture.data("py_webauthn_registration_options.json"))
        #expect(options.rp == PublicKeyCredentialRpEntityJSON(id: "example.com", name: "Example"))
        #expect(
            options.user
                == PublicKeyCredentialUserEntityJSON(id: Array(1...16), name: "alice@example.com", displayName: "Alice")
        )
        #expect(options.challenge == Array(0..<32))
        #expect(options.pubKeyCredParams.map(\.alg) == [-8, -7, -257])
        #expect(options.pubKeyCredParams.allSatisfy { $0.type == "public-key" })
        #expect(options.timeout == 120_000)
        #expect(
            options.excludeCredentials == [
                PublicKeyCredentialDescriptorJSON(
                    id: [UInt8](repeating: 0xAA, count: 16), transports: ["usb", "hybrid"])
            ])
        let selection = try #require(options.authenticatorSelection)
        #expect(selection.authenticatorAttachment == .crossPlatform)
        #expect(selection.residentKey == .required)
        #expect(selection.requireResidentKey)
        #expect(selection.userVerification == .required)
        #expect(options.attestation == .direct)
        #expect(options.hints == [.securityKey, .hybrid])
        #expect(options.attestationFormats.isEmpty)
        #expect(options.extensions == nil)
    }

    @Test func decodesPyWebAuthnAuthenticationOptions() throws {
        let options = try JSONDecoder().decode(
            PublicKeyCredentialRequestOptionsJSON.self,
            from: Fixture.data("py_webauthn_authentication_options.json"))
        #expect(options.challenge == Array(100..<132))
        #expect(options.timeout == 30_000)
        #expect(options.rpId == "example.com")
        #expect(
            options.allowCredentials == [
                PublicKeyCredentialDescriptorJSON(id: [UInt8](repeating: 0xBB, count: 20), transports: ["internal"])
            ])
        #expect(options.userVerification == .discouraged)
        #expect(options.hints.isEmpty)
    }

    @Test func minimalCreationOptionsTakeTheSpecDefaults() throws {
        let json =
            #"{"rp":{"name":"Example"},"user":{"id":"AQ","name":"a","displayName":"A"},"challenge":"AAAA","pubKeyCredParams":[]}"#
        let options = try JSONDecoder().decode(PublicKeyCredentialCreationOptionsJSON.self, from: Data(json.utf8))
        #expect(options.rp.id == nil)
        #expect(options.timeout == nil)
        #expect(options.excludeCredentials.isEmpty)
        #expect(options.authenticatorSelection == nil)
        #expect(options.attestation == .none)
        #expect(options.hints.isEmpty)
    }

    /// WebAuthn L3 §2.1.1: clients ignore enumeration values they do not know.
    @Test func unknownEnumerationValuesAreIgnored() throws {
        let json = #"""
            {"rp":{"name":"Example","id":"example.com"},"user":{"id":"AQ","name":"a","displayName":"A"},"challenge":"AAAA",
             "pubKeyCredParams":[{"type":"public-key","alg":-7},{"type":"future-type","alg":-999}],
             "authenticatorSelection":{"authenticatorAttachment":"implant","residentKey":"sometimes","requireResidentKey":true,"userVerification":"always"},
             "hints":["telepathy","client-device"],"attestation":"notarized","attestationFormats":["packed"],
             "extensions":{"credProps":true,"unknownExtension":{"x":1}}}
            """#
        let options = try JSONDecoder().decode(PublicKeyCredentialCreationOptionsJSON.self, from: Data(json.utf8))
        let selection = try #require(options.authenticatorSelection)
        #expect(selection.authenticatorAttachment == nil)
        #expect(selection.residentKey == nil)
        #expect(selection.effectiveResidentKey == .required)
        #expect(selection.userVerification == .preferred)
        #expect(options.hints == [.clientDevice])
        #expect(options.attestation == .none)
        #expect(options.attestationFormats == ["packed"])
        #expect(options.extensions?.credProps == true)
        #expect(options.pubKeyCredParams[1] == PublicKeyCredentialParametersJSON(alg: -999, type: "future-type"))

        let request = try JSONDecoder().decode(
            PublicKeyCredentialRequestOptionsJSON.self,
            from: Data(#"{"challenge":"AAAA","userVerification":"maybe","hints":["x"]}"#.utf8))
        #expect(request.userVerification == .preferred)
        #expect(request.hints.isEmpty)
    }

    @Test func requiredMembersMustBePresent() {
        let noChallenge = #"{"rp":{"name":"E"},"user":{"id":"AQ","name":"a","displayName":"A"},"pubKeyCredParams":[]}"#
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(PublicKeyCredentialCreationOptionsJSON.self, from: Data(noChallenge.utf8))
        }
        let noDisplayName =
            #"{"rp":{"name":"E"},"user":{"id":"AQ","name":"a"},"challenge":"AAAA","pubKeyCredParams":[]}"#
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(PublicKeyCredentialCreationOptionsJSON.self, from: Data(noDisplayName.utf8))
        }
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(
                PublicKeyCredentialRequestOptionsJSON.self, from: Data(#"{"challenge":"+/"}"#.utf8))
        }
    }

    @Test func creationOptionsEncodeWithSpecMemberNamesAndRoundTrip() throws {
        let options = PublicKeyCredentialCreationOptionsJSON(
            rp: .init(id: "example.com", name: "Example"),
            user: .init(id: [0xFB, 0xFF], name: "alice", displayName: "Alice"),
            challenge: [0xFF, 0xEE, 0xDD],
            pubKeyCredParams: [.init(.es256), .init(.edDSA)],
            timeout: 60_000,
            authenticatorSelection: .init(residentKey: .required, userVerification: .required),
            hints: [.clientDevice],
            extensions: .init(credProps: true))
        let data = try JSONEncoder().encode(options)
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(
            Set(object.keys) == [
                "rp", "user", "challenge", "pubKeyCredParams", "timeout", "excludeCredentials",
                "authenticatorSelection", "hints", "attestation", "extensions"
            ])
        #expect(object["challenge"] as? String == "_-7d")
        #expect((object["user"] as? [String: Any])?["id"] as? String == "-_8")
        let selection = try #require(object["authenticatorSelection"] as? [String: Any])
        #expect(selection["residentKey"] as? String == "required")
        #expect(selection["requireResidentKey"] as? Bool == true)
        #expect(selection["authenticatorAttachment"] == nil)
        #expect(try JSONDecoder().decode(PublicKeyCredentialCreationOptionsJSON.self, from: data) == options)
    }

    @Test func requestOptionsRoundTrip() throws {
        let options = PublicKeyCredentialRequestOptionsJSON(
            challenge: Array(0..<32), timeout: 1000, rpId: "example.com",
            allowCredentials: [.init(id: [1, 2, 3], transports: ["internal", "future"])],
            userVerification: .required, hints: [.securityKey])
        let data = try JSONEncoder().encode(options)
        #expect(try JSONDecoder().decode(PublicKeyCredentialRequestOptionsJSON.self, from: data) == options)
    }
}
