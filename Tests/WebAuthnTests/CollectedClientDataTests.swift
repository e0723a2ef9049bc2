import Foundation
import Testing
import WebAuthn

@Suite struct CollectedClientDataTests {
    @Test func serializesInTheLimitedVerificationOrder() {
        let data = CollectedClientData(type: .create, challenge: [0xFB, 0xFF], origin: "https://example.com")
        #expect(
            String(decoding: data.serialized, as: UTF8.self)
                == #"{"type":"webauthn.create","challenge":"-_8","origin":"https://example.com","crossOrigin":false}"#)
    }

    @Test func appendsTopOriginAfterCrossOrigin() {
        let data = CollectedClientData(
            type: .get, challenge: [1], origin: "https://rp.example",
            crossOrigin: true, topOrigin: "https://top.example")
        #expect(
            String(decoding: data.serialized, as: UTF8.self)
                == #"{"type":"webauthn.get","challenge":"AQ","origin":"https://rp.example","crossOrigin":true,"topOrigin":"https://top.example"}"#
        )
    }

    /// CCDToString (§5.8.1.1) escapes only `"`, `\` and controls, as lowercase `\u00xx`.
    @Test func escapesAsCCDToString() {
        let data = CollectedClientData(type: .get, challenge: [], origin: "a\"b\\c\u{01}\u{1F}/é😀")
        let text = String(decoding: data.serialized, as: UTF8.self)
        #expect(text.contains(#""origin":"a\"b\\c\u0001\u001f/é😀","#))
    }

    @Test func parsesWhatItSerializes() throws {
        let data = CollectedClientData(
            type: .get, challenge: Array(0..<32), origin: "https://é.example",
            crossOrigin: true, topOrigin: "https://top.example")
        #expect(try CollectedClientData(json: data.serialized) == data)
        let odd = CollectedClientData(type: .create, challenge: [9], origin: "x\"\\\u{7}y")
        #expect(try CollectedClientData(json: odd.serialized) == odd)
    }

    @Test func parsesBrowserShapedJSONInAnyOrderWithExtraMembers() throws {
        let json =
            #"{"origin":"https://example.com","challenge":"AQID","type":"webauthn.get","other_keys_can_be_added_here":"do not compare clientDataJSON against a template"}"#
        let data = try CollectedClientData(json: Array(json.utf8))
        #expect(data == CollectedClientData(type: .get, challenge: [1, 2, 3], origin: "https://example.com"))
    }

    @Test func stripsALeadingByteOrderMark() throws {
        let json = [0xEF, 0xBB, 0xBF] + Array(#"{"type":"webauthn.create","challenge":"AQ","origin":"https://a"}"#.utf8)
        #expect(try CollectedClientData(json: json).challenge == [1])
    }

    @Test func rejectsMalformedClientData() {
        #expect(throws: CollectedClientData.ParseError.unknownType("payment.get")) {
            try CollectedClientData(json: Array(#"{"type":"payment.get","challenge":"AQ","origin":"https://a"}"#.utf8))
        }
        #expect(throws: CollectedClientData.ParseError.invalidChallenge) {
            try CollectedClientData(
                json: Array(#"{"type":"webauthn.get","challenge":"A+/","origin":"https://a"}"#.utf8))
        }
        #expect(throws: CollectedClientData.ParseError.malformed) {
            try CollectedClientData(json: Array(#"{"type":"webauthn.get","challenge":"AQ"}"#.utf8))
        }
        #expect(throws: CollectedClientData.ParseError.malformed) {
            try CollectedClientData(
                json: Array(#"{"type":"webauthn.get","challenge":"AQ","origin":"https://a","crossOrigin":"yes"}"#.utf8))
        }
        #expect(throws: CollectedClientData.ParseError.malformed) { try CollectedClientData(json: [0xFF, 0xFE]) }
    }
}
