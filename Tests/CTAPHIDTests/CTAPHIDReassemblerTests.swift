import CTAP
import Testing

@testable import CTAPHID

@Suite struct CTAPHIDReassemblerTests {
    private func feed(_ packets: [CTAPHIDPacket], into reassembler: inout CTAPHIDReassembler) -> [CTAPHIDReassembler
        .Outcome]
    {
        packets.map { reassembler.accept($0) }
    }

    @Test(arguments: [0, 1, 57, 58, 116, 117, 1000, 7609])
    func fragmentsAndReassemblesEveryLength(length: Int) throws {
        let payload = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
        let message = CTAPHIDMessage(channel: 0x1234_5678, command: .cbor, payload: payload)
        let packets = message.packets
        let expectedCount = length <= 57 ? 1 : 1 + (length - 57 + 58) / 59
        #expect(packets.count == expectedCount)
        #expect(message.reports.count == 64 * expectedCount)

        // Through the byte form, as on the wire.
        var reassembler = CTAPHIDReassembler()
        var outcomes: [CTAPHIDReassembler.Outcome] = []
        for start in stride(from: 0, to: message.reports.count, by: 64) {
            outcomes.append(reassembler.accept(try CTAPHIDPacket(report: message.reports[start..<start + 64])))
        }
        #expect(outcomes.last == .complete(message))
        #expect(outcomes.dropLast().allSatisfy { $0 == .incomplete })
        #expect(reassembler.receivingChannel == nil)
    }

    @Test func the129thContinuationDoesNotExist() {
        let message = CTAPHIDMessage(channel: 1, command: .cbor, payload: [UInt8](repeating: 1, count: 7609))
        let packets = message.packets
        #expect(packets.count == 129)
        if case .continuation(_, let sequence, _) = packets.last { #expect(sequence == 127) }
    }

    @Test func tooLongALengthIsInvalidLength() {
        var reassembler = CTAPHIDReassembler()
        let outcome = reassembler.accept(.initialization(channel: 5, command: .cbor, length: 7610, data: []))
        #expect(outcome == .failed(channel: 5, error: .invalidLength))
        #expect(reassembler.receivingChannel == nil)
    }

    @Test func aSkippedSequenceIsInvalidSequenceAndDropsTheMessage() {
        var reassembler = CTAPHIDReassembler()
        let packets = CTAPHIDMessage(channel: 5, command: .cbor, payload: [UInt8](repeating: 2, count: 200)).packets
        #expect(reassembler.accept(packets[0]) == .incomplete)
        #expect(reassembler.accept(packets[2]) == .failed(channel: 5, error: .invalidSequence))
        #expect(reassembler.receivingChannel == nil)
        // The rest of the broken message is now spurious.
        #expect(reassembler.accept(packets[3]) == .ignored)
    }

    @Test func aRepeatedSequenceIsInvalidSequence() {
        var reassembler = CTAPHIDReassembler()
        let packets = CTAPHIDMessage(channel: 5, command: .cbor, payload: [UInt8](repeating: 2, count: 200)).packets
        _ = feed([packets[0], packets[1]], into: &reassembler)
        #expect(reassembler.accept(packets[1]) == .failed(channel: 5, error: .invalidSequence))
    }

    @Test func anInitializationPacketMidMessageIsInvalidSequence() {
        var reassembler = CTAPHIDReassembler()
        let long = CTAPHIDMessage(channel: 5, command: .cbor, payload: [UInt8](repeating: 2, count: 100)).packets
        #expect(reassembler.accept(long[0]) == .incomplete)
        let ping = CTAPHIDMessage(channel: 5, command: .ping, payload: [1]).packets[0]
        #expect(reassembler.accept(ping) == .failed(channel: 5, error: .invalidSequence))
        #expect(reassembler.receivingChannel == nil)
    }

    @Test func anotherChannelStartingMidMessageIsChannelBusyAndTheFirstGoesOn() {
        var reassembler = CTAPHIDReassembler()
        let message = CTAPHIDMessage(channel: 5, command: .cbor, payload: [UInt8](repeating: 3, count: 100))
        let packets = message.packets
        #expect(reassembler.accept(packets[0]) == .incomplete)
        let intruder = CTAPHIDMessage(channel: 6, command: .ping, payload: [1]).packets[0]
        #expect(reassembler.accept(intruder) == .failed(channel: 6, error: .channelBusy))
        #expect(reassembler.accept(.continuation(channel: 6, sequence: 0, data: [])) == .ignored)
        #expect(reassembler.accept(packets[1]) == .complete(message))
    }

    @Test func initResynchronisesTheChannelInReception() {
        var reassembler = CTAPHIDReassembler()
        let packets = CTAPHIDMessage(channel: 5, command: .cbor, payload: [UInt8](repeating: 3, count: 100)).packets
        #expect(reassembler.accept(packets[0]) == .incomplete)
        let initMessage = CTAPHIDMessage(channel: 5, command: .`init`, payload: [1, 2, 3, 4, 5, 6, 7, 8])
        #expect(reassembler.accept(initMessage.packets[0]) == .complete(initMessage))
        #expect(reassembler.receivingChannel == nil)
    }

    @Test func initOnBroadcastIsAnsweredWhileAnotherChannelIsReceiving() {
        var reassembler = CTAPHIDReassembler()
        let message = CTAPHIDMessage(channel: 5, command: .cbor, payload: [UInt8](repeating: 3, count: 100))
        #expect(reassembler.accept(message.packets[0]) == .incomplete)
        let initMessage = CTAPHIDMessage(
            channel: CTAPHIDChannel.broadcast, command: .`init`, payload: [UInt8](repeating: 9, count: 8))
        #expect(reassembler.accept(initMessage.packets[0]) == .complete(initMessage))
        #expect(reassembler.accept(message.packets[1]) == .complete(message))
    }

    @Test func aNewMessageAfterAnInitElsewhereTakesOverAnUnfinishedOne() {
        var reassembler = CTAPHIDReassembler()
        let stale = CTAPHIDMessage(channel: 5, command: .cbor, payload: [UInt8](repeating: 3, count: 100))
        #expect(reassembler.accept(stale.packets[0]) == .incomplete)
        let initMessage = CTAPHIDMessage(channel: 7, command: .`init`, payload: [UInt8](repeating: 9, count: 8))
        #expect(reassembler.accept(initMessage.packets[0]) == .complete(initMessage))
        let next = CTAPHIDMessage(channel: 7, command: .cbor, payload: [4])
        #expect(reassembler.accept(next.packets[0]) == .complete(next))
        // The stale message is gone: its continuation is spurious now.
        #expect(reassembler.accept(stale.packets[1]) == .ignored)
    }

    @Test func withoutAnInitAnotherChannelStillMeetsChannelBusy() {
        var reassembler = CTAPHIDReassembler()
        let message = CTAPHIDMessage(channel: 5, command: .cbor, payload: [UInt8](repeating: 3, count: 100))
        #expect(reassembler.accept(message.packets[0]) == .incomplete)
        #expect(
            reassembler.accept(CTAPHIDMessage(channel: 7, command: .cbor, payload: [4]).packets[0])
                == .failed(channel: 7, error: .channelBusy))
    }

    @Test func spuriousContinuationPacketsAreIgnored() {
        var reassembler = CTAPHIDReassembler()
        #expect(reassembler.accept(.continuation(channel: 5, sequence: 0, data: [1])) == .ignored)
    }

    @Test func abandonReportsTheTimedOutChannel() {
        var reassembler = CTAPHIDReassembler()
        let packets = CTAPHIDMessage(channel: 5, command: .cbor, payload: [UInt8](repeating: 3, count: 100)).packets
        _ = reassembler.accept(packets[0])
        #expect(reassembler.abandon() == 5)
        #expect(reassembler.abandon() == nil)
        #expect(reassembler.accept(packets[1]) == .ignored)
    }

    @Test func aHostReassemblerIgnoresOtherChannels() {
        var reassembler = CTAPHIDReassembler(onlyChannel: 5)
        let other = CTAPHIDMessage(channel: 6, command: .cbor, payload: [0]).packets[0]
        #expect(reassembler.accept(other) == .ignored)
        let keepalive = CTAPHIDMessage(
            channel: 5, command: .keepalive, payload: [KeepaliveStatus.userPresenceNeeded.rawValue])
        #expect(reassembler.accept(keepalive.packets[0]) == .complete(keepalive))
    }

    @Test func errorMessagesCarryTheCode() {
        let message = CTAPHIDMessage.error(.channelBusy, channel: 3)
        #expect(message.command == .error && message.payload == [0x06])
    }
}
