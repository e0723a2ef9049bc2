import Testing

@testable import CTAP

/// ISO 7816-4 APDUs and the U2F commands read from them (FIDO U2F Raw Message Formats §3–§6):
/// every malformed one has its status word.
struct U2FRequestTests {
    static let challenge = [UInt8](repeating: 0xC1, count: 32)
    static let application = [UInt8](repeating: 0xA9, count: 32)

    @Test func shortAndExtendedEncodingsReadTheSame() throws {
        let data: [UInt8] = [1, 2, 3]
        let short = try CommandAPDU(bytes: [0, 2, 3, 0, 3] + data + [0])
        let extended = try CommandAPDU(bytes: [0, 2, 3, 0, 0, 0, 3] + data + [0, 0])
        #expect(short.data == data && extended.data == data)
        #expect(short.p1 == 3 && extended.p1 == 3)
        #expect(short.maxResponseLength == 256)
        #expect(extended.maxResponseLength == 65536)
        #expect(try CommandAPDU(bytes: [0, 3, 0, 0]).data.isEmpty)
        #expect(try CommandAPDU(bytes: [0, 3, 0, 0, 0, 0, 0]).maxResponseLength == 65536)
        #expect(try CommandAPDU(bytes: [0, 2, 3, 0, 3] + data).maxResponseLength == nil)
        // python-fido2's and libfido2's U2F_VERSION: extended Lc 0, then Le.
        let version = try CommandAPDU(bytes: [0, 3, 0, 0, 0, 0, 0, 0, 0])
        #expect(version.data.isEmpty && version.maxResponseLength == 65536)
    }

    @Test func lengthsThatDisagreeWithTheBytesAreWrongLength() {
        for bytes: [UInt8] in [
            [], [0, 3, 0],  // shorter than a header
            [0, 2, 0, 0, 4, 1, 2, 3],  // short Lc past the end
            [0, 2, 0, 0, 2, 1, 2, 3, 4],  // short: one byte too many for Le
            [0, 2, 0, 0, 0, 1],  // extended Lc cut short
            [0, 2, 0, 0, 0, 0, 0, 1],  // extended Lc 0, then one byte that is neither data nor Le
            [0, 2, 0, 0, 0, 0, 2, 1, 2, 3]  // extended: a lone Le byte
        ] {
            #expect(throws: StatusWord.wrongLength, "\(bytes)") { try CommandAPDU(bytes: bytes) }
        }
    }

    @Test func theThreeCommandsRoundTrip() throws {
        let register = U2FRequest.register(U2FRegisterRequest(challenge: Self.challenge, application: Self.application))
        let authenticate = U2FRequest.authenticate(
            U2FAuthenticateRequest(
                control: .enforceUserPresence, challenge: Self.challenge, application: Self.application,
                keyHandle: [7, 7, 7]))
        for request in [register, authenticate, .version] {
            #expect(try U2FRequest(apdu: request.apdu.bytes) == request)
        }
    }

    @Test func classInstructionAndControlAreChecked() {
        #expect(throws: StatusWord.classNotSupported) { try U2FRequest(apdu: [0x80, 3, 0, 0]) }
        #expect(throws: StatusWord.instructionNotSupported) { try U2FRequest(apdu: [0, 0x04, 0, 0]) }
        #expect(throws: StatusWord.instructionNotSupported) { try U2FRequest(apdu: [0, 0xC0, 0, 0]) }
        let data = Self.challenge + Self.application + [1, 9]
        #expect(throws: StatusWord.wrongData) { try U2FRequest(apdu: CommandAPDU(ins: 2, p1: 0x05, data: data)) }
    }

    @Test func commandDataOfTheWrongSizeIsWrongLength() {
        #expect(throws: StatusWord.wrongLength) { try U2FRequest(apdu: CommandAPDU(ins: 1, data: Self.challenge)) }
        #expect(throws: StatusWord.wrongLength) {
            try U2FRequest(apdu: CommandAPDU(ins: 1, data: Self.challenge + Self.application + [0]))
        }
        // The key handle's length byte says 2, one byte follows.
        #expect(throws: StatusWord.wrongLength) {
            try U2FRequest(apdu: CommandAPDU(ins: 2, p1: 3, data: Self.challenge + Self.application + [2, 9]))
        }
        #expect(throws: StatusWord.wrongLength) {
            try U2FRequest(apdu: CommandAPDU(ins: 2, p1: 3, data: Self.challenge))
        }
        #expect(throws: StatusWord.wrongLength) { try U2FRequest(apdu: CommandAPDU(ins: 3, data: [1])) }
    }

    @Test func responsesAreLaidOutAsTheRawMessageFormatsSay() {
        let registration = U2FResponse.registration(
            publicKey: [4] + [UInt8](repeating: 1, count: 64), keyHandle: [9, 9], attestationCertificate: [0x30, 0],
            signature: [0x30, 1])
        #expect(registration.apdu == [5, 4] + [UInt8](repeating: 1, count: 64) + [2, 9, 9, 0x30, 0, 0x30, 1, 0x90, 0])
        #expect(
            U2FResponse.authentication(userPresence: 1, counter: 0x0102_0304, signature: [0x30]).apdu == [
                1, 1, 2, 3, 4, 0x30, 0x90, 0
            ])
        #expect(U2FResponse.version("U2F_V2").apdu == Array("U2F_V2".utf8) + [0x90, 0])
    }
}
