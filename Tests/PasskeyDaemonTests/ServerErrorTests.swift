import CTAP
import CTAPHID
import Testing

@testable import PasskeyDaemon

/// Every malformed request gets a CTAPHID_ERROR with the code of CTAP 2.1 §11.2.9.1.6.
@Suite struct ServerErrorTests {
    private func expectError(
        _ error: CTAPHIDError, on channel: UInt32, from client: HIDTestClient,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let reply = try await client.readReply(channel: channel)
        #expect(reply.command == .error, sourceLocation: sourceLocation)
        #expect(reply.payload == [error.rawValue], sourceLocation: sourceLocation)
    }

    @Test(arguments: [UInt8(0x22), 0x03, 0x04, 0x3B, 0x3F, 0x40, 0x7F])
    func unknownAndUnsupportedCommandsAreInvalidCommand(command: UInt8) async throws {
        try await withDaemon { daemon in
            try await HIDTestClient.with(path: daemon.path) { client in
                let channel = try await client.initialize()
                try await client.send(
                    CTAPHIDMessage(channel: channel, command: CTAPHIDCommand(rawValue: command), payload: [1]))
                try await expectError(.invalidCommand, on: channel, from: client)
            }
        }
    }

    @Test func channelZeroBroadcastAndUnallocatedChannelsAreInvalidChannel() async throws {
        try await withDaemon { daemon in
            try await HIDTestClient.with(path: daemon.path) { client in
                try await client.send(
                    CTAPHIDMessage(channel: 0, command: .`init`, payload: [UInt8](repeating: 0, count: 8)))
                try await expectError(.invalidChannel, on: 0, from: client)
                try await client.send(CTAPHIDMessage(channel: CTAPHIDChannel.broadcast, command: .ping, payload: [1]))
                try await expectError(.invalidChannel, on: CTAPHIDChannel.broadcast, from: client)
                let mine = try await client.initialize()
                let notMine = mine &+ 1
                try await client.send(CTAPHIDMessage(channel: notMine, command: .ping, payload: [1]))
                try await expectError(.invalidChannel, on: notMine, from: client)
            }
        }
    }

    @Test func anotherConnectionsChannelIsInvalidChannel() async throws {
        try await withDaemon { daemon in
            let theirs = try await HIDTestClient.with(path: daemon.path) { try await $0.initialize() }
            try await HIDTestClient.with(path: daemon.path) { client in
                try await client.send(CTAPHIDMessage(channel: theirs, command: .ping, payload: [1]))
                try await expectError(.invalidChannel, on: theirs, from: client)
            }
        }
    }

    @Test func lengthsBeyond7609EmptyCBORAndShortNoncesAreInvalidLength() async throws {
        try await withDaemon { daemon in
            try await HIDTestClient.with(path: daemon.path) { client in
                let channel = try await client.initialize()
                try await client.send(
                    raw: CTAPHIDPacket.initialization(channel: channel, command: .ping, length: 7610, data: []).report)
                try await expectError(.invalidLength, on: channel, from: client)
                try await client.send(CTAPHIDMessage(channel: channel, command: .cbor))
                try await expectError(.invalidLength, on: channel, from: client)
                try await client.send(
                    CTAPHIDMessage(channel: CTAPHIDChannel.broadcast, command: .`init`, payload: [1, 2, 3]))
                try await expectError(.invalidLength, on: CTAPHIDChannel.broadcast, from: client)
                try await client.send(
                    CTAPHIDMessage(channel: channel, command: VendorCommand.presence.command, payload: [1, 1]))
                try await expectError(.invalidLength, on: channel, from: client)
            }
        }
    }

    @Test func aPresenceAnswerOtherThanZeroOrOneIsInvalidParameter() async throws {
        try await withDaemon { daemon in
            try await HIDTestClient.with(path: daemon.path) { client in
                let channel = try await client.initialize()
                try await client.send(
                    CTAPHIDMessage(channel: channel, command: VendorCommand.presence.command, payload: [2]))
                try await expectError(.invalidParameter, on: channel, from: client)
            }
        }
    }

    @Test func skippedSequencesAndInitPacketsMidMessageAreInvalidSequence() async throws {
        try await withDaemon { daemon in
            try await HIDTestClient.with(path: daemon.path) { client in
                let channel = try await client.initialize()
                let packets = CTAPHIDMessage(
                    channel: channel, command: .ping, payload: [UInt8](repeating: 7, count: 300)
                ).packets
                try await client.send(raw: packets[0].report + packets[2].report)
                try await expectError(.invalidSequence, on: channel, from: client)
                try await client.send(
                    raw: packets[0].report + CTAPHIDMessage(channel: channel, command: .ping, payload: [1]).reports)
                try await expectError(.invalidSequence, on: channel, from: client)
                // The channel still works afterwards.
                let reply = try await client.transact(CTAPHIDMessage(channel: channel, command: .ping, payload: [5]))
                #expect(reply.payload == [5])
            }
        }
    }

    @Test func anIncompleteMessageTimesOut() async throws {
        try await withDaemon { daemon in
            try await HIDTestClient.with(path: daemon.path) { client in
                let channel = try await client.initialize()
                let packets = CTAPHIDMessage(
                    channel: channel, command: .cbor, payload: [UInt8](repeating: 7, count: 100)
                ).packets
                try await client.send(raw: packets[0].report)
                try await expectError(.messageTimeout, on: channel, from: client)
                // The late continuation is spurious now and ignored; the next request is answered.
                try await client.send(raw: packets[1].report)
                let reply = try await client.transact(CTAPHIDMessage(channel: channel, command: .ping, payload: [6]))
                #expect(reply.payload == [6])
            }
        }
    }

    @Test func anotherChannelOnTheSameHandleMidMessageIsChannelBusy() async throws {
        // Not a timeout test: a generous message timeout keeps a loaded machine from turning it into one.
        try await withDaemon(timing: .init(messageTimeout: .seconds(30))) { daemon in
            try await HIDTestClient.with(path: daemon.path) { client in
                let first = try await client.initialize()
                let second = try await client.initialize()
                let message = CTAPHIDMessage(channel: first, command: .ping, payload: [UInt8](repeating: 3, count: 100))
                try await client.send(raw: message.packets[0].report)
                try await client.send(CTAPHIDMessage(channel: second, command: .ping, payload: [1]))
                try await expectError(.channelBusy, on: second, from: client)
                try await client.send(raw: message.packets[1].report)
                let reply = try await client.readReply(channel: first)
                #expect(reply == message)
            }
        }
    }
}
