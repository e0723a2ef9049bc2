import CBOR
import Testing

@testable import CTAP

@Suite("authenticatorClientPIN request")
struct ClientPINRequestTests {
    static let platformKey = COSEKey.p256(
        x: [UInt8](repeating: 1, count: 32), y: [UInt8](repeating: 2, count: 32), algorithm: .ecdhESHKDF256)

    static let wellFormed: [ClientPINRequest] = [
        ClientPINRequest(subCommand: .getPINRetries),
        ClientPINRequest(subCommand: .getPINRetries, pinUvAuthProtocol: 1),
        ClientPINRequest(subCommand: .getKeyAgreement, pinUvAuthProtocol: 2),
        ClientPINRequest(
            subCommand: .setPIN, pinUvAuthProtocol: 2, keyAgreement: platformKey,
            pinUvAuthParam: [UInt8](repeating: 3, count: 32), newPinEnc: [UInt8](repeating: 4, count: 80)),
        ClientPINRequest(
            subCommand: .changePIN, pinUvAuthProtocol: 1, keyAgreement: platformKey,
            pinUvAuthParam: [UInt8](repeating: 3, count: 16), newPinEnc: [UInt8](repeating: 4, count: 64),
            pinHashEnc: [UInt8](repeating: 5, count: 16)),
        ClientPINRequest(
            subCommand: .getPinToken, pinUvAuthProtocol: 1, keyAgreement: platformKey,
            pinHashEnc: [UInt8](repeating: 5, count: 16)),
        ClientPINRequest(
            subCommand: .getPinUvAuthTokenUsingUvWithPermissions, pinUvAuthProtocol: 2, keyAgreement: platformKey,
            permissions: [.mc, .ga], rpId: "example.com"),
        ClientPINRequest(subCommand: .getUVRetries),
        ClientPINRequest(
            subCommand: .getPinUvAuthTokenUsingPinWithPermissions, pinUvAuthProtocol: 2, keyAgreement: platformKey,
            pinHashEnc: [UInt8](repeating: 5, count: 32), permissions: [.cm, .acfg])
    ]

    @Test(arguments: wellFormed)
    func encodedRequestsParseBackUnchanged(request: ClientPINRequest) throws {
        let bytes = request.cbor.encoded
        #expect(try ClientPINRequest(cbor: CBORDecoder.decode(bytes)) == request)
    }

    @Test func getKeyAgreementEncodesAsTheSpecsTwoEntryMap() {
        // {1: 2, 2: 2}
        #expect(
            ClientPINRequest(subCommand: .getKeyAgreement, pinUvAuthProtocol: 2).cbor.encoded == [
                0xA2, 0x01, 0x02, 0x02, 0x02
            ])
    }

    @Test func aGetPINRetriesRequestFromTheWireParses() throws {
        // {1: 1, 2: 1}, as libfido2 sends it.
        let request = try ClientPINRequest(cbor: CBORDecoder.decode([0xA2, 0x01, 0x01, 0x02, 0x01]))
        #expect(request.subCommand == .getPINRetries)
        #expect(request.pinUvAuthProtocol == 1)
    }

    @Test func permissionsKeepTheirBitsIncludingUnknownOnes() throws {
        let request = try ClientPINRequest(cbor: [
            0x01: 2, 0x02: 0x09, 0x03: Self.platformKey.cbor, 0x06: .byteString([0]), 0x09: 0x83
        ])
        #expect(request.permissions == [.mc, .ga, PinUvAuthTokenPermissions(rawValue: 0x80)])
        #expect(PinUvAuthTokenPermissions([.mc, .ga, .cm, .be, .lbw, .acfg]).rawValue == 0x3F)
    }

    @Test func unknownKeysAreIgnored() throws {
        let request = try ClientPINRequest(cbor: [0x01: 1, 0x02: 0x02, 0x07: "ignored", 0x63: .byteString([1, 2])])
        #expect(request == ClientPINRequest(subCommand: .getKeyAgreement, pinUvAuthProtocol: 1))
    }

    @Test func aMissingSubCommandIsAMissingParameter() {
        #expect(throws: CTAPStatus.missingParameter) { try ClientPINRequest(cbor: [0x01: 1]) }
    }

    @Test(arguments: [
        ClientPINSubcommand.getKeyAgreement, .setPIN, .changePIN, .getPinToken,
        .getPinUvAuthTokenUsingUvWithPermissions, .getPinUvAuthTokenUsingPinWithPermissions
    ])
    func subcommandsThatNeedAProtocolRefuseItsAbsence(subCommand: ClientPINSubcommand) {
        // Every other field present, so only the protocol is missing.
        let cbor: CBORValue = [
            0x02: CBORValue(subCommand.rawValue), 0x03: Self.platformKey.cbor, 0x04: .byteString([1]),
            0x05: .byteString([2]), 0x06: .byteString([3]), 0x09: 1
        ]
        #expect(throws: CTAPStatus.missingParameter) { try ClientPINRequest(cbor: cbor) }
    }

    @Test func theRetriesSubcommandsNeedNoProtocol() throws {
        #expect(try ClientPINRequest(cbor: [0x02: 0x01]).subCommand == .getPINRetries)
        #expect(try ClientPINRequest(cbor: [0x02: 0x07]).subCommand == .getUVRetries)
    }

    @Test func setPINWithoutItsFieldsIsAMissingParameter() {
        let complete: [CBORValue: CBORValue] = [
            0x01: 2, 0x02: 0x03, 0x03: Self.platformKey.cbor, 0x04: .byteString([1]), 0x05: .byteString([2])
        ]
        for key: CBORValue in [0x03, 0x04, 0x05] {
            var entries = complete
            entries[key] = nil
            #expect(throws: CTAPStatus.missingParameter) { try ClientPINRequest(cbor: .map(entries)) }
        }
    }

    @Test func tokenRequestsWithoutPermissionsOrPinHashAreAMissingParameter() {
        #expect(throws: CTAPStatus.missingParameter) {
            try ClientPINRequest(cbor: [0x01: 2, 0x02: 0x09, 0x03: Self.platformKey.cbor, 0x06: .byteString([0])])
        }
        #expect(throws: CTAPStatus.missingParameter) {
            try ClientPINRequest(cbor: [0x01: 2, 0x02: 0x09, 0x03: Self.platformKey.cbor, 0x09: 1])
        }
        #expect(throws: CTAPStatus.missingParameter) {
            try ClientPINRequest(cbor: [0x01: 2, 0x02: 0x06, 0x03: Self.platformKey.cbor])
        }
    }

    @Test(arguments: [
        [0x02: "getPINRetries"] as CBORValue,  // subCommand as text
        [0x02: -1],  // subCommand negative
        [0x01: .byteString([2]), 0x02: 0x02],  // pinUvAuthProtocol as bytes
        [0x01: -2, 0x02: 0x02],  // pinUvAuthProtocol negative
        [0x01: 2, 0x02: 0x02, 0x03: 7],  // keyAgreement not a map
        [0x01: 2, 0x02: 0x05, 0x03: platformKey.cbor, 0x06: "hash"],  // pinHashEnc as text
        [0x01: 2, 0x02: 0x03, 0x03: platformKey.cbor, 0x04: .byteString([1]), 0x05: true],  // newPinEnc as bool
        [0x01: 2, 0x02: 0x03, 0x03: platformKey.cbor, 0x04: 1, 0x05: .byteString([1])],  // pinUvAuthParam as int
        [0x01: 2, 0x02: 0x09, 0x03: platformKey.cbor, 0x06: .byteString([0]), 0x09: -1],  // permissions negative
        // rpId as bytes
        [0x01: 2, 0x02: 0x09, 0x03: platformKey.cbor, 0x06: .byteString([0]), 0x09: 1, 0x0A: .byteString([1])],
        [1, 2]  // not a map at all
    ])
    func aFieldOfTheWrongTypeIsAnUnexpectedType(cbor: CBORValue) {
        #expect(throws: CTAPStatus.cborUnexpectedType) { try ClientPINRequest(cbor: cbor) }
    }

    @Test(arguments: [0x00, 0x08, 0x0A, 0xFF, 0x1_0001])
    func anUnknownSubcommandIsAnInvalidSubcommand(raw: Int) {
        #expect(throws: CTAPStatus.invalidSubcommand) { try ClientPINRequest(cbor: [0x01: 1, 0x02: CBORValue(raw)]) }
    }
}
