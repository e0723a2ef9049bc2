import CTAP
import CTAPHID
import NIOCore
import NIOPosix
import Testing

@testable import PasskeyDaemon

/// One transaction at a time across the device; nothing one client does blocks the others beyond that.
@Suite struct ServerIsolationTests {
    @Test func anotherConnectionIsBusyWhileATransactionRunsButVendorCommandsAreAnswered() async throws {
        try await withDaemon { daemon in
            try await HIDTestClient.with(path: daemon.path) { first in
                let channelA = try await first.initialize()
                try await first.send(CTAPHIDMessage(channel: channelA, command: .cbor, payload: [0x01]))
                try await first.awaitKeepalive(.userPresenceNeeded, channel: channelA)
                try await HIDTestClient.with(path: daemon.path) { second in
                    let channelB = try await second.initialize()
                    let ping = try await second.transact(
                        CTAPHIDMessage(channel: channelB, command: .ping, payload: [1]))
                    #expect(ping == .error(.channelBusy, channel: channelB))
                    // A transaction waits for the device for the timing's patience, then is told it is busy.
                    let cbor = try await second.transact(
                        CTAPHIDMessage(channel: channelB, command: .cbor, payload: [0x04]))
                    #expect(cbor == .error(.channelBusy, channel: channelB))
                    #expect(daemon.server.device.channels.waitingCount == 0)
                    // CANCEL from someone else's channel does nothing.
                    try await second.send(CTAPHIDMessage(channel: channelB, command: .cancel))
                    let approve = try await second.transact(
                        CTAPHIDMessage(channel: channelB, command: VendorCommand.presence.command, payload: [1]))
                    #expect(approve.payload == [1])
                    let reply = try await first.readReply(channel: channelA)
                    #expect(reply.payload == [CTAPStatus.success.rawValue])
                    let after = try await second.transact(
                        CTAPHIDMessage(channel: channelB, command: .cbor, payload: [0x04]))
                    #expect(after.payload == [0x00, 0xA0])
                }
            }
        }
    }

    /// A transaction that finds the device busy waits its turn, first come first served, and
    /// runs once the one before it ends: no ERR_CHANNEL_BUSY while the wait is shorter than
    /// the patience (`ChannelTable`).
    @Test(.timeLimit(.minutes(1))) func transactionsThatFindTheDeviceBusyRunInTurn() async throws {
        try await whileATouchIsAwaited { daemon, first, channelA in
            try await HIDTestClient.with(path: daemon.path) { second in
                let channelB = try await second.initialize()
                try await HIDTestClient.with(path: daemon.path) { third in
                    let channelC = try await third.initialize()
                    try await second.send(CTAPHIDMessage(channel: channelB, command: .cbor, payload: [0x04]))
                    try await waitUntil(waiting: 1, daemon)
                    try await third.send(CTAPHIDMessage(channel: channelC, command: .cbor, payload: [0x02, 3]))
                    try await waitUntil(waiting: 2, daemon)
                    try await touch(daemon, answering: first, on: channelA)
                    #expect(try await second.readReply(channel: channelB).payload == [0x00, 0xA0])
                    #expect(try await third.readReply(channel: channelC).payload == [0x00, 0x02, 3])
                    #expect(await daemon.handler.callers.map(\.channel) == [channelA, channelB, channelC])
                }
            }
        }
    }

    /// A device that computes (no UPNEEDED) is waited for however long it takes, as a host's
    /// report waits in the USB stack of a hardware key that computes: with the default 25 ms
    /// patience, a command computing 250 ms keeps every waiting transaction out of ERR_CHANNEL_BUSY.
    @Test(.timeLimit(.minutes(1))) func aDeviceThatComputesIsWaitedForPastThePatience() async throws {
        try await withDaemon { daemon in
            try await HIDTestClient.with(path: daemon.path) { first in
                let channelA = try await first.initialize()
                try await HIDTestClient.with(path: daemon.path) { second in
                    let channelB = try await second.initialize()
                    try await first.send(CTAPHIDMessage(channel: channelA, command: .cbor, payload: [0x0C, 25]))
                    while !daemon.server.device.channels.isBusy { try await Task.sleep(for: .milliseconds(1)) }
                    let waited = try await second.transact(
                        CTAPHIDMessage(channel: channelB, command: .cbor, payload: [0x04]))
                    #expect(waited.payload == [0x00, 0xA0], "served in turn, not told busy")
                    #expect(try await first.readReply(channel: channelA).payload == [0x00, 0x0C, 25])
                    #expect(await daemon.handler.callers.map(\.channel) == [channelA, channelB])
                }
            }
        }
    }

    /// A waiting transaction whose peer leaves never runs, and the device goes to the one after it.
    @Test(.timeLimit(.minutes(1))) func aWaitingTransactionWhosePeerLeftNeverRuns() async throws {
        try await whileATouchIsAwaited { daemon, first, channelA in
            try await HIDTestClient.with(path: daemon.path) { second in
                let channelB = try await second.initialize()
                try await HIDTestClient.with(path: daemon.path) { leaving in
                    let channel = try await leaving.initialize()
                    try await leaving.send(CTAPHIDMessage(channel: channel, command: .cbor, payload: [0x02, 1]))
                    try await waitUntil(waiting: 1, daemon)
                }
                try await waitUntil(waiting: 0, daemon)
                try await second.send(CTAPHIDMessage(channel: channelB, command: .cbor, payload: [0x02, 2]))
                try await waitUntil(waiting: 1, daemon)
                try await touch(daemon, answering: first, on: channelA)
                #expect(try await second.readReply(channel: channelB).payload == [0x00, 0x02, 2])
                #expect(await daemon.handler.callers.map(\.channel) == [channelA, channelB])
            }
        }
    }

    /// Runs `body` while a first client's transaction holds the device, waiting for a touch; a
    /// transaction that finds the device busy waits for it as long as the test runs.
    private func whileATouchIsAwaited(_ body: (TestDaemon, HIDTestClient, UInt32) async throws -> Void) async throws {
        try await withDaemon(timing: .init(busyPatience: .seconds(30))) { daemon in
            try await HIDTestClient.with(path: daemon.path) { first in
                let channel = try await first.initialize()
                try await first.send(CTAPHIDMessage(channel: channel, command: .cbor, payload: [0x01]))
                try await first.awaitKeepalive(.userPresenceNeeded, channel: channel)
                try await body(daemon, first, channel)
            }
        }
    }

    /// The touch the first transaction waits for: it ends, answered.
    private func touch(_ daemon: TestDaemon, answering first: HIDTestClient, on channel: UInt32) async throws {
        #expect(await daemon.broker.resolve(approve: true))
        #expect(try await first.readReply(channel: channel).payload == [CTAPStatus.success.rawValue])
    }

    private func waitUntil(waiting count: Int, _ daemon: TestDaemon) async throws {
        while daemon.server.device.channels.waitingCount != count { try await Task.sleep(for: .milliseconds(1)) }
    }

    /// Group commit: an answer leaves only once what it rests on is durable, and the device
    /// takes the next transaction meanwhile, so a second registration can share the flush.
    @Test func anAnswerWaitsForDurabilityWhileTheDeviceTakesTheNextTransaction() async throws {
        try await withDaemon { daemon in
            await daemon.handler.holdDurability()
            try await HIDTestClient.with(path: daemon.path) { first in
                let channelA = try await first.initialize()
                try await first.send(CTAPHIDMessage(channel: channelA, command: .cbor, payload: [0x04]))
                await daemon.handler.waitForCompleted(1)
                try await HIDTestClient.with(path: daemon.path) { second in
                    let channelB = try await second.initialize()
                    try await second.send(CTAPHIDMessage(channel: channelB, command: .cbor, payload: [0x04]))
                    // Not CHANNEL_BUSY: the device was free; while the answer waits, keepalives say so.
                    let waiting = try await second.readMessage(channel: channelB)
                    #expect(waiting.command == .keepalive)
                    #expect(await daemon.handler.completed == 2)
                    try await first.awaitKeepalive(.processing, channel: channelA)
                    await daemon.handler.settleDurability(true)
                    #expect(try await first.readReply(channel: channelA).payload == [0x00, 0xA0])
                    #expect(try await second.readReply(channel: channelB).payload == [0x00, 0xA0])
                }
            }
        }
    }

    /// A flush blocks the thread that waits for it (`Keystore.durable`): on a loop that serves
    /// other connections, the wait moves off the loop, so they are answered meanwhile.
    @Test(.timeLimit(.minutes(1))) func aFlushDoesNotHoldTheConnectionsSharingItsLoop() async throws {
        try await withDaemon { daemon in
            daemon.handler.blockFlushes()
            // One connection more than the daemon has loops: the first shares its loop with another
            // (the loops are taken in turn). The clients run on a group of their own, so a loop the
            // daemon may block for a flush that nobody else shares holds none of them.
            let clientLoops = MultiThreadedEventLoopGroup(numberOfThreads: 1)
            do {
                try await withClients(System.coreCount + 1, path: daemon.path, group: clientLoops) { clients in
                    try await pingsAreAnsweredDuringTheFirstOnesFlush(clients, daemon: daemon)
                }
            } catch {
                try await clientLoops.shutdownGracefully()
                throw error
            }
            try await clientLoops.shutdownGracefully()
        }
    }

    private func pingsAreAnsweredDuringTheFirstOnesFlush(_ clients: [HIDTestClient], daemon: TestDaemon) async throws {
        var channels: [UInt32] = []
        for client in clients { channels.append(try await client.initialize()) }
        try await clients[0].send(CTAPHIDMessage(channel: channels[0], command: .cbor, payload: [0x04]))
        while !daemon.handler.flushRunning.load(ordering: .sequentiallyConsistent) {
            try await Task.sleep(for: .milliseconds(1))
        }
        for (client, channel) in zip(clients, channels).dropFirst() {
            let ping = try await client.transact(CTAPHIDMessage(channel: channel, command: .ping, payload: [7]))
            #expect(ping.payload == [7])
            let flushStillRunning = daemon.handler.flushRunning.load(ordering: .sequentiallyConsistent)
            #expect(flushStillRunning, "answered only once the flush ended")
        }
        daemon.handler.endFlush()
        #expect(try await clients[0].readReply(channel: channels[0]).payload == [0x00, 0xA0])
    }

    private func withClients(
        _ count: Int, path: String, group: any EventLoopGroup, opened: [HIDTestClient] = [],
        _ body: ([HIDTestClient]) async throws -> Void
    ) async throws {
        guard opened.count < count else { return try await body(opened) }
        try await HIDTestClient.with(path: path, group: group) { client in
            try await withClients(count, path: path, group: group, opened: opened + [client], body)
        }
    }

    @Test func anAnswerWhoseStateCouldNotBeMadeDurableIsAnError() async throws {
        try await withDaemon { daemon in
            await daemon.handler.settleDurability(false)
            try await HIDTestClient.with(path: daemon.path) { client in
                let channel = try await client.initialize()
                let reply = try await client.transact(CTAPHIDMessage(channel: channel, command: .cbor, payload: [0x04]))
                #expect(reply.payload == [CTAPStatus.other.rawValue])
            }
        }
    }

    @Test func garbageTruncatedAndStalledTrafficDoNotDisturbAnotherConnection() async throws {
        try await withDaemon { daemon in
            try await HIDTestClient.with(path: daemon.path) { good in
                let channel = try await good.initialize()
                try await HIDTestClient.with(path: daemon.path) { bad in
                    // Random reports with random CIDs: every init packet is answered with an error, none crash.
                    var generator = SystemRandomNumberGenerator()
                    let garbage = (0..<64 * 20).map { _ in UInt8.random(in: 0...255, using: &generator) }
                    try await bad.send(raw: garbage)
                    // An oversized declaration and a message left half-sent.
                    let badChannel = try await bad.initialize()
                    try await bad.send(
                        raw: CTAPHIDPacket.initialization(
                            channel: badChannel, command: .cbor, length: 7609, data: [0x04]
                        ).report)
                    // And a truncated report.
                    try await bad.send(raw: [0x01, 0x02, 0x03])

                    let reply = try await good.transact(
                        CTAPHIDMessage(channel: channel, command: .cbor, payload: [0x04]))
                    #expect(reply.payload == [0x00, 0xA0])
                    let ping = try await good.transact(
                        CTAPHIDMessage(channel: channel, command: .ping, payload: [UInt8](repeating: 9, count: 500)))
                    #expect(ping.payload.count == 500)
                }
            }
        }
    }

    @Test func aVanishedPeerCancelsItsTransactionAndFreesTheDevice() async throws {
        try await withDaemon { daemon in
            try await HIDTestClient.with(path: daemon.path) { client in
                let channel = try await client.initialize()
                try await client.send(CTAPHIDMessage(channel: channel, command: .cbor, payload: [0x01]))
                try await client.awaitKeepalive(.userPresenceNeeded, channel: channel)
            }
            // The prompt was cancelled when the peer left, so the handler returned.
            await daemon.handler.waitForCompleted(1)
            // CTAP2_ERR_KEEPALIVE_CANCEL, not the prompt's own timeout (0x2F).
            #expect(await daemon.handler.lastResponse == [0x2D])
            #expect(await daemon.broker.pendingPrompt?.kind == nil)
            try await HIDTestClient.with(path: daemon.path) { client in
                let channel = try await client.initialize()
                var reply = try await client.transact(CTAPHIDMessage(channel: channel, command: .cbor, payload: [0x04]))
                // The device is released just after the handler returns; allow that instant to pass.
                while reply == .error(.channelBusy, channel: channel) {
                    await Task.yield()
                    reply = try await client.transact(CTAPHIDMessage(channel: channel, command: .cbor, payload: [0x04]))
                }
                #expect(reply.payload == [0x00, 0xA0])
            }
        }
    }

    /// Each channel of each connection is its own caller (CTAP 2.1 §6.3: state is the
    /// caller's); resynchronising a channel, or closing the connection, ends what it began.
    @Test(.timeLimit(.minutes(1))) func everyChannelIsACallerAndLeavingReleasesIt() async throws {
        try await withDaemon { daemon in
            let (first, second) = try await HIDTestClient.with(path: daemon.path) { client in
                let channelA = try await client.initialize()
                let channelB = try await client.initialize(nonce: [8, 7, 6, 5, 4, 3, 2, 1])
                #expect(
                    try await client.transact(CTAPHIDMessage(channel: channelA, command: .cbor, payload: [0x04]))
                        .payload == [0x00, 0xA0])
                #expect(
                    try await client.transact(CTAPHIDMessage(channel: channelB, command: .cbor, payload: [0x04]))
                        .payload == [0x00, 0xA0])
                let callers = await daemon.handler.callers
                #expect(callers.count == 2)
                #expect(callers[0].connection == callers[1].connection)
                #expect(callers.map(\.channel) == [channelA, channelB])
                // INIT on an allocated channel resynchronises it.
                _ = try await client.initialize(channel: channelA)
                await daemon.handler.waitForRelease(of: callers[0])
                #expect(await !daemon.handler.released.contains(callers[1]))
                return (callers[0], callers[1])
            }
            await daemon.handler.waitForRelease(of: second)
            #expect(await daemon.handler.released.contains(first))
        }
    }
}
