import CBOR
import Testing

@testable import CTAP

@Suite("authenticatorClientPIN response")
struct ClientPINResponseTests {
    static let authenticatorKey = COSEKey.p256(
        x: [UInt8](repeating: 1, count: 32), y: [UInt8](repeating: 2, count: 32), algorithm: .ecdhESHKDF256)

    static let wellFormed: [ClientPINResponse] = [
        ClientPINResponse(keyAgreement: authenticatorKey),
        ClientPINResponse(pinUvAuthToken: [UInt8](repeating: 9, count: 48)),
        ClientPINResponse(pinRetries: 8, powerCycleState: false),
        ClientPINResponse(pinRetries: 0, powerCycleState: true),
        ClientPINResponse(uvRetries: 3)
    ]

    @Test(arguments: wellFormed)
    func encodedResponsesParseBackUnchanged(response: ClientPINResponse) throws {
        #expect(try ClientPINResponse(cbor: CBORDecoder.decode(response.cbor.encoded)) == response)
    }

    @Test func getPINRetriesEncodesWithTheSpecsKeys() {
        // {3: 8, 4: false}
        #expect(ClientPINResponse(pinRetries: 8, powerCycleState: false).cbor.encoded == [0xA2, 0x03, 0x08, 0x04, 0xF4])
    }

    @Test func theKeyAgreementIsAtKeyOne() throws {
        let response = try ClientPINResponse(cbor: [0x01: Self.authenticatorKey.cbor])
        #expect(response.keyAgreement == Self.authenticatorKey)
        #expect(response.pinUvAuthToken == nil && response.pinRetries == nil && response.uvRetries == nil)
    }

    @Test(arguments: [
        [0x01: .byteString([1])] as CBORValue,  // keyAgreement not a map
        [0x02: "token"],  // pinUvAuthToken as text
        [0x03: -1],  // pinRetries negative
        [0x04: 1],  // powerCycleState as int
        [0x05: .byteString([3])],  // uvRetries as bytes
        .byteString([])  // not a map
    ])
    func aFieldOfTheWrongTypeIsAnUnexpectedType(cbor: CBORValue) {
        #expect(throws: CTAPStatus.cborUnexpectedType) { try ClientPINResponse(cbor: cbor) }
    }
}
