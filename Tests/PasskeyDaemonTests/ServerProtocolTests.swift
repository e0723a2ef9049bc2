import CBOR
import CTAP
import CTAPHID
import Foundation
import Testing

@testable import PasskeyDaemon

/// CTAPHID over the real socket: INIT, PING, CBOR, KEEPALIVE, CANCEL, vendor commands.
@Suite struct ServerProtocolTests {
    @Test func initAllocatesFreshChannelsAndEchoesTheNonce() async throws {
        try await withDaemon { daemon in
            try await HIDTestClient.with(path: daemon.path) { client in
                let nonce: [UInt8] = [9, 8, 7, 6, 5, 4, 3, 2]
                let reply = try await client.transact(
                    CTAPHIDMessage(channel: CTAPHIDChannel.broadcast, command: .`init`, payload: nonce))
                #expect(reply.command == .`init`)
                #expect(reply.payload.count == 17)
                let response = try #require(CTAPHIDInitResponse(payload: reply.payload))
                #expect(response.nonce == nonce)
                #expect(CTAPHIDChannel.isAllocatable(response.channel))
                #expect(response.protocolVersion == 2)
                #expect(response.capabilities == [.cbor, .nmsg, .wink])
                let second = try await client.initialize()
                #expect(second != response.channel && CTAPHIDChannel.isAllocatable(second))
            }
        }
    }

    @Test func initOnAnAllocatedChannelResynchronisesIt() async throws {
        // A generous message timeout: a loaded machine must not time the partial message out first.
        try await withDaemon(timing: .init(messageTimeout: .seconds(30))) { daemon in
            try await HIDTestClient.with(path: daemon.path) { client in
                let channel = try await client.initialize()
                // Start a long message, then INIT on the same channel: the partial message is dropped.
                let long = CTAPHIDMessage(channel: channel, command: .ping, payload: [UInt8](repeating: 1, count: 200))
                try await client.send(raw: long.packets[0].report)
                let nonce: [UInt8] = [1, 1, 2, 3, 5, 8, 13, 21]
                let reply = try await client.transact(
                    CTAPHIDMessage(channel: channel, command: .`init`, payload: nonce))
                let response = try #require(CTAPHIDInitResponse(payload: reply.payload))
                #expect(response.channel == channel && response.nonce == nonce)
                let ping = try await client.transact(CTAPHIDMessage(channel: channel, command: .ping, payload: [42]))
                #expect(ping.payload == [42])
            }
        }
    }

    @Test func initOnAChannelNobodyHoldsAdoptsIt() async throws {
        try await withDaemon { daemon in
            try await HIDTestClient.with(path: daemon.path) { client in
                let chosen: UInt32 = 0x0A0B_0C0D
                let nonce: [UInt8] = [2, 7, 1, 8, 2, 8, 1, 8]
                let reply = try await client.transact(CTAPHIDMessage(channel: chosen, command: .`init`, payload: nonce))
                let response = try #require(CTAPHIDInitResponse(payload: reply.payload))
                #expect(reply.channel == chosen && response.channel == chosen && response.nonce == nonce)
                #expect(
                    try await client.transact(CTAPHIDMessage(channel: chosen, command: .ping, payload: [7])).payload
                        == [7])
                // Another connection's INIT on it is still refused.
                try await HIDTestClient.with(path: daemon.path) { other in
                    let refused = try await other.transact(
                        CTAPHIDMessage(channel: chosen, command: .`init`, payload: nonce))
                    #expect(refused.command == .error && refused.payload == [CTAPHIDError.invalidChannel.rawValue])
                }
            }
        }
    }

    @Test func anUnfinishedMessageLeavesNoChannelBusyAfterAnInitElsewhere() async throws {
        try await withDaemon(timing: .init(messageTimeout: .seconds(30))) { daemon in
            try await HIDTestClient.with(path: daemon.path) { client in
                let abandoned = try await client.initialize()
                let fresh = try await client.initialize()
                try await client.send(
                    raw: CTAPHIDMessage(channel: abandoned, command: .ping, payload: [UInt8](repeating: 1, count: 200))
                        .packets[0].report)
                _ = try await client.transact(
                    CTAPHIDMessage(channel: fresh, command: .`init`, payload: [UInt8](repeating: 3, count: 8)))
                #expect(
                    try await client.transact(CTAPHIDMessage(channel: fresh, command: .ping, payload: [9])).payload == [
                        9
                    ])
            }
        }
    }

    @Test func pingEchoesAMultiPacketPayload() async throws {
        try await withDaemon { daemon in
            try await HIDTestClient.with(path: daemon.path) { client in
                let channel = try await client.initialize()
                let payload = (0..<1000).map { UInt8(truncatingIfNeeded: $0) }
                let reply = try await client.transact(
                    CTAPHIDMessage(channel: channel, command: .ping, payload: payload))
                #expect(reply.command == .ping && reply.payload == payload)
            }
        }
    }

    @Test func cborReachesTheHandlerAndItsAnswerComesBack() async throws {
        try await withDaemon { daemon in
            try await HIDTestClient.with(path: daemon.path) { client in
                let channel = try await client.initialize()
                let reply = try await client.transact(CTAPHIDMessage(channel: channel, command: .cbor, payload: [0x04]))
                #expect(reply.command == .cbor && reply.payload == [0x00, 0xA0])
                let echo = try await client.transact(
                    CTAPHIDMessage(channel: channel, command: .cbor, payload: [0x20, 1, 2]))
                #expect(echo.payload == [0x00, 0x20, 1, 2])
            }
        }
    }

    /// Messages in one write are answered in their order, also when one of them has to wait (a
    /// vendor command, an INIT resynchronising a channel): the reports after it wait for it.
    @Test func messagesAfterOneThatWaitsAreAnsweredAfterIt() async throws {
        try await withDaemon { daemon in
            try await HIDTestClient.with(path: daemon.path) { client in
                let channel = try await client.initialize()
                let nonce: [UInt8] = [3, 1, 4, 1, 5, 9, 2, 6]
                try await client.send(
                    raw: CTAPHIDMessage(channel: channel, command: VendorCommand.status.command).reports
                        + CTAPHIDMessage(channel: channel, command: .ping, payload: [42]).reports
                        + CTAPHIDMessage(channel: channel, command: .`init`, payload: nonce).reports
                        + CTAPHIDMessage(channel: channel, command: .cbor, payload: [0x20, 7]).reports)
                let status = try await client.readReply(channel: channel)
                #expect(status.command == VendorCommand.status.command)
                let ping = try await client.readReply(channel: channel)
                #expect(ping.command == .ping && ping.payload == [42])
                let resynchronised = try await client.readReply(channel: channel)
                #expect(
                    resynchronised.command == .`init`
                        && CTAPHIDInitResponse(payload: resynchronised.payload)?.nonce == nonce)
                let echo = try await client.readReply(channel: channel)
                #expect(echo.command == .cbor && echo.payload == [0x00, 0x20, 7])
            }
        }
    }

    @Test func winkIsAnswered() async throws {
        try await withDaemon { daemon in
            try await HIDTestClient.with(path: daemon.path) { client in
                let channel = try await client.initialize()
                let reply = try await client.transact(CTAPHIDMessage(channel: channel, command: .wink))
                #expect(reply.command == .wink && reply.payload.isEmpty)
            }
        }
    }

    @Test func presencePromptSendsUpNeededAndVendorPresenceApprovesIt() async throws {
        try await withDaemon { daemon in
            try await HIDTestClient.with(path: daemon.path) { client in
                let channel = try await client.initialize()
                try await client.send(CTAPHIDMessage(channel: channel, command: .cbor, payload: [0x01]))
                try await client.awaitKeepalive(.userPresenceNeeded, channel: channel)
                // Approve from another connection, as passkeyctl would.
                try await HIDTestClient.with(path: daemon.path) { controller in
                    let control = try await controller.initialize()
                    let status = try await controller.transact(
                        CTAPHIDMessage(channel: control, command: VendorCommand.status.command))
                    let seen = try DaemonStatus(bytes: status.payload)
                    #expect(seen.pending == "presence")
                    #expect(seen.rpID == "example.com")
                    let id = try #require(seen.promptID)
                    let idBytes = (0..<8).reversed().map { UInt8(truncatingIfNeeded: id >> ($0 * 8)) }
                    // An answer naming another prompt reaches nothing; a 5-byte one is malformed.
                    let stale = try await controller.transact(
                        CTAPHIDMessage(
                            channel: control, command: VendorCommand.presence.command,
                            payload: [1] + (0..<8).map { _ in 0xFF }))
                    #expect(stale.payload == [0])
                    let short = try await controller.transact(
                        CTAPHIDMessage(
                            channel: control, command: VendorCommand.presence.command, payload: [1, 0, 0, 0, 1]))
                    #expect(short == .error(.invalidLength, channel: control))
                    let answer = try await controller.transact(
                        CTAPHIDMessage(
                            channel: control, command: VendorCommand.presence.command, payload: [1] + idBytes))
                    #expect(answer.payload == [1])
                }
                let reply = try await client.readReply(channel: channel)
                #expect(reply.command == .cbor && reply.payload == [CTAPStatus.success.rawValue])
            }
        }
    }

    @Test func vendorPresenceDenyGivesOperationDenied() async throws {
        try await withDaemon { daemon in
            try await HIDTestClient.with(path: daemon.path) { client in
                let channel = try await client.initialize()
                try await client.send(CTAPHIDMessage(channel: channel, command: .cbor, payload: [0x01]))
                try await client.awaitKeepalive(.userPresenceNeeded, channel: channel)
                // The vendor command is answered on the same connection, mid-transaction;
                // its reply and the transaction's may come in either order.
                try await client.send(
                    CTAPHIDMessage(channel: channel, command: VendorCommand.presence.command, payload: [0]))
                let replies = [
                    try await client.readReply(channel: channel), try await client.readReply(channel: channel)
                ]
                #expect(replies.first { $0.command == VendorCommand.presence.command }?.payload == [1])
                #expect(replies.first { $0.command == .cbor }?.payload == [CTAPStatus.operationDenied.rawValue])
            }
        }
    }

    @Test func vendorPresenceWithNothingPendingSaysSo() async throws {
        try await withDaemon { daemon in
            try await HIDTestClient.with(path: daemon.path) { client in
                let channel = try await client.initialize()
                let answer = try await client.transact(
                    CTAPHIDMessage(channel: channel, command: VendorCommand.presence.command, payload: [1]))
                #expect(answer.payload == [0])
            }
        }
    }

    @Test func cancelEndsTheWaitWithKeepaliveCancel() async throws {
        try await withDaemon { daemon in
            try await HIDTestClient.with(path: daemon.path) { client in
                let channel = try await client.initialize()
                try await client.send(CTAPHIDMessage(channel: channel, command: .cbor, payload: [0x01]))
                try await client.awaitKeepalive(.userPresenceNeeded, channel: channel)
                try await client.send(CTAPHIDMessage(channel: channel, command: .cancel))
                let reply = try await client.readReply(channel: channel)
                #expect(reply.command == .cbor && reply.payload == [CTAPStatus.keepaliveCancel.rawValue])
                // The device is free again.
                let next = try await client.transact(CTAPHIDMessage(channel: channel, command: .cbor, payload: [0x04]))
                #expect(next.payload == [0x00, 0xA0])
            }
        }
    }

    @Test func replugPowerCyclesTheHandler() async throws {
        try await withDaemon { daemon in
            try await HIDTestClient.with(path: daemon.path) { client in
                let channel = try await client.initialize()
                let reply = try await client.transact(
                    CTAPHIDMessage(channel: channel, command: VendorCommand.replug.command))
                #expect(reply.command == VendorCommand.replug.command && reply.payload.isEmpty)
            }
            #expect(await daemon.handler.powerCycles == 1)
        }
    }

    @Test func statusDescribesTheDaemon() async throws {
        try await withDaemon { daemon in
            try await HIDTestClient.with(path: daemon.path) { client in
                let channel = try await client.initialize()
                let reply = try await client.transact(
                    CTAPHIDMessage(channel: channel, command: VendorCommand.status.command))
                let map = try #require(try CBORDecoder.decode(reply.payload).mapValue)
                #expect(map["socket"] == .textString(daemon.path))
                #expect(map["pid"]?.intValue == Int(getpid()))
                #expect(map["pending"] == "none")
                #expect(map["version"]?.textValue == DaemonInfo.currentVersion)
                #expect((map["startedAt"]?.intValue ?? 0) > 1_600_000_000)
            }
        }
    }
}
