import CTAP
import Foundation
import Testing
import WebAuthn

/// The base64url member wrapper, the unknown-enumeration wrapper and the generic credential, through
/// the types that use them: what a page or relying party sends must read, and what passkeyd writes
/// must be what `toJSON()` writes (WebAuthn L3 §5.1).
@Suite struct JSONCodingTests {
    static func sorted(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    static func decode<T: Decodable>(_ type: T.Type, _ json: String) throws(OptionsJSONError) -> T {
        try OptionsJSONError.decode(type, from: Data(json.utf8))
    }

    /// The bytes `passkeyctl webauthn` and the browser host print (both sort keys), member for member;
    /// the same bytes the hand-written coders wrote before the wrappers replaced them.
    @Test func credentialsEncodeAsToJSONDoes() throws {
        let assertion = AuthenticationResponseJSON(
            credentialID: [0xFB, 0xFF], clientDataJSON: [4], authenticatorData: [5], signature: [6], userHandle: [7],
            authenticatorAttachment: .crossPlatform,
            clientExtensionResults: .init(prf: .init(results: .init(first: [8])), largeBlob: .init(blob: [9])))
        #expect(
            try Self.sorted(assertion) == #"""
                {"authenticatorAttachment":"cross-platform",\#
                "clientExtensionResults":{"largeBlob":{"blob":"CQ"},"prf":{"results":{"first":"CA"}}},\#
                "id":"-_8","rawId":"-_8",\#
                "response":{"authenticatorData":"BQ","clientDataJSON":"BA","signature":"Bg","userHandle":"Bw"},\#
                "type":"public-key"}
                """#)
        let registration = RegistrationResponseJSON(
            credentialID: [1, 2, 3],
            response: AuthenticatorAttestationResponseJSON(
                clientDataJSON: [4], authenticatorData: [5], transports: ["usb"],
                publicKey: nil, publicKeyAlgorithm: -8, attestationObject: [6]))
        #expect(
            try Self.sorted(registration) == #"""
                {"clientExtensionResults":{},"id":"AQID","rawId":"AQID",\#
                "response":{"attestationObject":"Bg","authenticatorData":"BQ","clientDataJSON":"BA",\#
                "publicKeyAlgorithm":-8,"transports":["usb"]},"type":"public-key"}
                """#)
    }

    @Test func optionsEncodeAsToJSONDoes() throws {
        let creation = PublicKeyCredentialCreationOptionsJSON(
            rp: .init(id: nil, name: "E"), user: .init(id: [0xFF], name: "a", displayName: "A"), challenge: [0],
            pubKeyCredParams: [.init(.es256)], excludeCredentials: [.init(id: [1], transports: ["usb"])],
            extensions: .init(largeBlob: .init(write: [2])))
        #expect(
            try Self.sorted(creation) == #"""
                {"attestation":"none","challenge":"AA",\#
                "excludeCredentials":[{"id":"AQ","transports":["usb"],"type":"public-key"}],\#
                "extensions":{"largeBlob":{"write":"Ag"}},"pubKeyCredParams":[{"alg":-7,"type":"public-key"}],\#
                "rp":{"name":"E"},"user":{"displayName":"A","id":"_w","name":"a"}}
                """#)
        let request = PublicKeyCredentialRequestOptionsJSON(
            challenge: [1, 2, 3, 4, 5], timeout: 9, rpId: "e.com",
            allowCredentials: [.init(id: [7, 7, 7], transports: ["internal", "hybrid"])], userVerification: .required,
            hints: [.securityKey], extensions: .init(prf: .init(eval: .init(first: [1], second: [2]))))
        #expect(
            try Self.sorted(request) == #"""
                {"allowCredentials":[{"id":"BwcH","transports":["internal","hybrid"],"type":"public-key"}],\#
                "challenge":"AQIDBAU","extensions":{"prf":{"eval":{"first":"AQ","second":"Ag"}}},"hints":["security-key"],\#
                "rpId":"e.com","timeout":9,"userVerification":"required"}
                """#)
    }

    /// Absent and `null` optional byte members read as nil; nil is left out, never written as `null`.
    @Test func optionalBytesMayBeAbsentOrNull() throws {
        for member in ["", #","userHandle":null"#] {
            let json = #"{"clientDataJSON":"AA","authenticatorData":"AA","signature":"AA"\#(member)}"#
            let response = try Self.decode(AuthenticatorAssertionResponseJSON.self, json)
            #expect(response.userHandle == nil)
            #expect(try Self.sorted(response) == #"{"authenticatorData":"AA","clientDataJSON":"AA","signature":"AA"}"#)
        }
        let values = try Self.decode(AuthenticationExtensionsPRFValuesJSON.self, #"{"first":"AQ","second":"Ag"}"#)
        #expect(values == .init(first: [1], second: [2]))
    }

    /// Padding is accepted as py_webauthn and python-fido2 accept it; output never has it.
    @Test func paddedBase64URLIsReadAndWrittenUnpadded() throws {
        let json = #"{"id":"AQI=","name":"a","displayName":"A"}"#
        let user = try Self.decode(PublicKeyCredentialUserEntityJSON.self, json)
        #expect(user.id == [1, 2])
        #expect(try Self.sorted(user) == #"{"displayName":"A","id":"AQI","name":"a"}"#)
    }

    /// The standard alphabet, bad padding and junk are refused with the member's path and the
    /// project's precise words; a non-string is "must be a string".
    @Test(arguments: [
        (#"{"challenge":"+/8"}"#, "challenge", "is not base64url"),
        (#"{"challenge":"Zg="}"#, "challenge", "is not base64url"),
        (#"{"challenge":"Z"}"#, "challenge", "is not base64url"),
        (#"{"challenge":7}"#, "challenge", "must be a string"),
        (
            #"{"challenge":"AA","allowCredentials":[{"type":"public-key","id":"a/b"}]}"#,
            "allowCredentials[0].id", "is not base64url"
        ),
        (
            #"{"challenge":"AA","extensions":{"largeBlob":{"write":"a+b"}}}"#,
            "extensions.largeBlob.write", "is not base64url"
        ),
        (
            #"{"challenge":"AA","extensions":{"prf":{"eval":{"first":"AA","second":"=="}}}}"#,
            "extensions.prf.eval.second", "is not base64url"
        )
    ])
    func badBase64URLNamesTheMember(json: String, member: String, problem: String) {
        let dictionary = "PublicKeyCredentialRequestOptionsJSON"
        let expected = OptionsJSONError(dictionary: dictionary, member: member, problem: problem)
        #expect(throws: expected) {
            try Self.decode(PublicKeyCredentialRequestOptionsJSON.self, json)
        }
    }

    @Test func badBase64URLInAResponseNamesTheMember() {
        let json = #"""
            {"id":"AQ","rawId":"AQ","type":"public-key","clientExtensionResults":{},
             "response":{"clientDataJSON":"AA","authenticatorData":"A+","signature":"AA"}}
            """#
        let dictionary = "PublicKeyCredentialJSON<AuthenticatorAssertionResponseJSON>"
        #expect(
            throws: OptionsJSONError(
                dictionary: dictionary, member: "response.authenticatorData",
                problem: "is not base64url")
        ) {
            try Self.decode(AuthenticationResponseJSON.self, json)
        }
        let noRawId = #"{"id":"AQ","type":"public-key","clientExtensionResults":{},"response":{}}"#
        #expect(throws: OptionsJSONError(dictionary: dictionary, member: "rawId", problem: "is missing")) {
            try Self.decode(AuthenticationResponseJSON.self, noRawId)
        }
    }

    /// A known attachment round-trips; a non-string one is still a type error, not ignored.
    @Test func authenticatorAttachmentIsKnownOrAbsent() throws {
        let json =
            #"{"id":"AQ","rawId":"AQ","type":"public-key","clientExtensionResults":{},"#
            + #""authenticatorAttachment":"platform","#
            + #""response":{"clientDataJSON":"AA","authenticatorData":"AA","signature":"AA"}}"#
        let credential = try Self.decode(AuthenticationResponseJSON.self, json)
        #expect(credential.authenticatorAttachment == .platform)
        #expect(try Self.sorted(credential).contains(#""authenticatorAttachment":"platform""#))
        #expect(throws: OptionsJSONError.self) {
            try Self.decode(AuthenticationResponseJSON.self, json.replacingOccurrences(of: #""platform""#, with: "1"))
        }
    }

    /// One conversion each way between the JSON dictionaries and the CTAP entities.
    @Test func descriptorAndUserConvertToAndFromTheCTAPEntities() {
        let descriptor = PublicKeyCredentialDescriptor(id: [1, 2], type: "future", transports: ["nfc"])
        #expect(PublicKeyCredentialDescriptorJSON(descriptor).ctap == descriptor)
        #expect(PublicKeyCredentialDescriptorJSON(id: [3]).ctap == PublicKeyCredentialDescriptor(id: [3]))
        let user = PublicKeyCredentialUserEntity(id: [9], name: "alice", displayName: "Alice")
        #expect(PublicKeyCredentialUserEntityJSON(user).ctap == user)
        let anonymous = PublicKeyCredentialUserEntity(id: [9])
        #expect(PublicKeyCredentialUserEntityJSON(anonymous) == .init(id: [9], name: "", displayName: ""))
    }
}
