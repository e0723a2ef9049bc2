import Testing

@testable import CTAPHID

@Suite struct CTAPHIDPacketTests {
    @Test func initializationPacketLayoutFollowsTheSpec() throws {
        let packet = CTAPHIDPacket.initialization(
            channel: 0x0102_0304, command: .cbor, length: 0x0105, data: [0xAA, 0xBB])
        let report = packet.report
        #expect(report.count == 64)
        #expect(Array(report[0..<7]) == [0x01, 0x02, 0x03, 0x04, 0x90, 0x01, 0x05])
        #expect(Array(report[7..<9]) == [0xAA, 0xBB])
        #expect(report[9...].allSatisfy { $0 == 0 })
    }

    @Test func continuationPacketLayoutFollowsTheSpec() {
        let report = CTAPHIDPacket.continuation(channel: 0xFFFF_FFFF, sequence: 5, data: [1, 2, 3]).report
        #expect(Array(report[0..<8]) == [0xFF, 0xFF, 0xFF, 0xFF, 0x05, 1, 2, 3])
        #expect(report.count == 64)
    }

    @Test func parsesWhatItBuilds() throws {
        let initial = CTAPHIDPacket.initialization(
            channel: 7, command: CTAPHIDCommand(rawValue: 0x52), length: 3, data: [9, 8, 7])
        guard
            case .initialization(let channel, let command, let length, let data) = try CTAPHIDPacket(
                report: initial.report)
        else {
            Issue.record("not an initialization packet")
            return
        }
        #expect(channel == 7 && command.rawValue == 0x52 && command.isVendor && length == 3)
        #expect(data.count == 57 && Array(data.prefix(3)) == [9, 8, 7])

        let continuation = CTAPHIDPacket.continuation(channel: 9, sequence: 127, data: [1])
        guard case .continuation(let channel2, let sequence, let data2) = try CTAPHIDPacket(report: continuation.report)
        else {
            Issue.record("not a continuation packet")
            return
        }
        #expect(channel2 == 9 && sequence == 127 && data2.count == 59 && data2[0] == 1)
    }

    @Test func rejectsReportsThatAreNot64Bytes() {
        #expect(throws: CTAPHIDPacket.ParseError.wrongSize(63)) {
            try CTAPHIDPacket(report: [UInt8](repeating: 0, count: 63))
        }
        #expect(throws: CTAPHIDPacket.ParseError.wrongSize(65)) {
            try CTAPHIDPacket(report: [UInt8](repeating: 0, count: 65))
        }
    }

    @Test func maxMessageLengthIs7609() {
        #expect(CTAPHIDPacket.maxMessageLength == 7609)
    }

    @Test func commandBitsAreMaskedAndNamed() {
        #expect(CTAPHIDCommand(rawValue: 0x90) == .cbor)
        #expect(CTAPHIDCommand.keepalive.rawValue == 0x3B)
        #expect(!CTAPHIDCommand.error.isVendor)
        #expect(CTAPHIDCommand(rawValue: 0x7F).isVendor)
        #expect(CTAPHIDCommand(rawValue: 0x22).description == "UNKNOWN(0x22)")
    }

    @Test func initResponseRoundTrips() throws {
        let response = CTAPHIDInitResponse(
            nonce: [1, 2, 3, 4, 5, 6, 7, 8], channel: 0xDEAD_BEEF, majorVersion: 1, minorVersion: 2, buildVersion: 3,
            capabilities: [.cbor, .nmsg])
        #expect(response.payload.count == 17)
        #expect(response.payload[16] == 0x0C)
        #expect(Array(response.payload[8..<12]) == [0xDE, 0xAD, 0xBE, 0xEF])
        #expect(CTAPHIDInitResponse(payload: response.payload) == response)
        #expect(CTAPHIDInitResponse(payload: Array(response.payload.prefix(16))) == nil)
    }
}
