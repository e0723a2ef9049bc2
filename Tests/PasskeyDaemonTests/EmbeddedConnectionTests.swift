import Authenticator
import CTAP
import CTAPHID
import Logging
import NIOCore
import NIOEmbedded
import Testing

@testable import PasskeyDaemon

/// The daemon's CTAPHID framing and connection state machine (CTAP 2.1 §11.2) with no socket:
/// `CTAPHIDChannelHandler` and `CTAPHIDConnection` on an in-memory channel, fed reports with
/// `writeInbound`, their answers read from the channel's outbound buffer, and the timers moved
/// with the loop's manual clock instead of waited for.
@Suite(.timeLimit(.minutes(1))) struct EmbeddedConnectionTests {
    @Test func initOnBroadcastEchoesTheNonceAndAllocatesAFreshChannel() async throws {
        // §11.2.9.1.3: the answer goes to the broadcast channel, echoes the nonce and names a new channel.
        try await withEmbeddedDevice { device in
            let host = try await device.connect()
            let nonce: [UInt8] = [9, 8, 7, 6, 5, 4, 3, 2]
            let reply = try await host.transact(
                CTAPHIDMessage(channel: CTAPHIDChannel.broadcast, command: .`init`, payload: nonce))
            #expect(reply.channel == CTAPHIDChannel.broadcast && reply.command == .`init` && reply.payload.count == 17)
            let response = try #require(CTAPHIDInitResponse(payload: reply.payload))
            #expect(response.nonce == nonce && response.protocolVersion == 2)
            #expect(CTAPHIDChannel.isAllocatable(response.channel))
            #expect(response.capabilities == [.cbor, .nmsg, .wink])
            let second = try await host.initialize()
            #expect(second != response.channel && CTAPHIDChannel.isAllocatable(second))
        }
    }

    @Test func pingEchoesAcrossContinuationPacketsHoweverTheStreamSplitsThem() async throws {
        // §11.2.4: an initialization packet and sequence-numbered continuations; the stream
        // carries reports back to back, cut anywhere.
        try await withEmbeddedDevice { device in
            let host = try await device.connect()
            let channel = try await host.initialize()
            let message = CTAPHIDMessage(
                channel: channel, command: .ping, payload: (0..<1000).map { UInt8(truncatingIfNeeded: $0) })
            let bytes = message.reports
            #expect(bytes.count == 17 * CTAPHIDPacket.size)
            for cut in [0..<1, 1..<64, 64..<138, 138..<bytes.count] { try await host.send(raw: Array(bytes[cut])) }
            let reply = try await host.readReply(channel: channel)
            #expect(reply == message)
        }
    }

    @Test func aCBORMessageIsAnsweredByTheHandlerForItsCaller() async throws {
        // §11.2.9.1.2: CTAPHID_CBOR carries the request to the authenticator and its answer back.
        try await withEmbeddedDevice { device in
            let host = try await device.connect()
            let channel = try await host.initialize()
            let info = try await host.transact(CTAPHIDMessage(channel: channel, command: .cbor, payload: [0x04]))
            #expect(info.command == .cbor && info.payload == [0x00, 0xA0])
            let echo = try await host.transact(CTAPHIDMessage(channel: channel, command: .cbor, payload: [0x20, 1, 2]))
            #expect(echo.payload == [0x00, 0x20, 1, 2])
            #expect(
                await device.handler.callers
                    == Array(repeating: CTAPCaller(connection: host.id, channel: channel), count: 2))
        }
    }

    @Test func aSkippedSequenceIsInvalidSequenceAndTheChannelRecovers() async throws {
        // §11.2.4: continuation packets come in sequence; §11.2.9.1.6 ERR_INVALID_SEQ otherwise.
        try await withEmbeddedDevice { device in
            let host = try await device.connect()
            let channel = try await host.initialize()
            let packets = CTAPHIDMessage(channel: channel, command: .ping, payload: [UInt8](repeating: 7, count: 300))
                .packets
            try await host.send(raw: packets[0].report + packets[2].report)
            #expect(try await host.readReply(channel: channel) == .error(.invalidSequence, channel: channel))
            #expect(
                try await host.transact(CTAPHIDMessage(channel: channel, command: .ping, payload: [5])).payload == [5])
        }
    }

    @Test func channelsNotAllocatedToTheConnectionAreInvalidChannel() async throws {
        // §11.2.9.1.6 ERR_INVALID_CHANNEL: channel 0, broadcast for anything but INIT, a channel
        // nobody allocated, another connection's channel.
        try await withEmbeddedDevice { device in
            let host = try await device.connect()
            let other = try await device.connect()
            let theirs = try await other.initialize()
            let mine = try await host.initialize()
            let unallocated = try #require(
                (1...3).map { mine &+ $0 }.first { $0 != theirs && CTAPHIDChannel.isAllocatable($0) })
            try await host.send(CTAPHIDMessage(channel: 0, command: .`init`, payload: [UInt8](repeating: 0, count: 8)))
            #expect(try await host.readReply(channel: 0) == .error(.invalidChannel, channel: 0))
            for channel in [CTAPHIDChannel.broadcast, unallocated, theirs] {
                #expect(
                    try await host.transact(CTAPHIDMessage(channel: channel, command: .ping, payload: [1]))
                        == .error(.invalidChannel, channel: channel))
            }
            #expect(
                try await other.transact(CTAPHIDMessage(channel: theirs, command: .ping, payload: [2])).payload == [2])
        }
    }

    @Test func aLengthBeyondTheMaximumOrAShortNonceIsInvalidLength() async throws {
        // §11.2.4: at most 64 − 7 + 128 × (64 − 5) = 7609 bytes; §11.2.9.1.3: an 8-byte nonce.
        try await withEmbeddedDevice { device in
            let host = try await device.connect()
            let channel = try await host.initialize()
            try await host.send(
                raw: CTAPHIDPacket.initialization(channel: channel, command: .ping, length: 7610, data: []).report)
            #expect(try await host.readReply(channel: channel) == .error(.invalidLength, channel: channel))
            try await host.send(CTAPHIDMessage(channel: CTAPHIDChannel.broadcast, command: .`init`, payload: [1, 2, 3]))
            #expect(
                try await host.readReply(channel: CTAPHIDChannel.broadcast)
                    == .error(.invalidLength, channel: CTAPHIDChannel.broadcast))
            // 7609 bytes is still a message.
            let longest = CTAPHIDMessage(channel: channel, command: .ping, payload: [UInt8](repeating: 4, count: 7609))
            #expect(try await host.transact(longest) == longest)
        }
    }

    @Test func anIncompleteMessageTimesOutWhenItsTimeIsUpAndNotBefore() async throws {
        // §11.2.4: a message whose continuation does not come is abandoned with ERR_MSG_TIMEOUT.
        try await withEmbeddedDevice { device in
            let host = try await device.connect()
            let channel = try await host.initialize()
            let packets = CTAPHIDMessage(channel: channel, command: .cbor, payload: [UInt8](repeating: 7, count: 100))
                .packets
            try await host.send(raw: packets[0].report)
            await device.loop.advanceTime(by: TimeAmount(device.timing.messageTimeout) - .nanoseconds(1))
            #expect(try await host.hasNothingToRead())
            await device.loop.advanceTime(by: .nanoseconds(1))
            #expect(try await host.readReply(channel: channel) == .error(.messageTimeout, channel: channel))
            // The late continuation is spurious now and ignored; the next request is answered.
            try await host.send(raw: packets[1].report)
            #expect(
                try await host.transact(CTAPHIDMessage(channel: channel, command: .ping, payload: [6])).payload == [6])
            #expect(await device.handler.completed == 0)
        }
    }

    @Test func aMessageCompletedInTimeStartsNoTimeout() async throws {
        try await withEmbeddedDevice { device in
            let host = try await device.connect()
            let channel = try await host.initialize()
            let message = CTAPHIDMessage(channel: channel, command: .ping, payload: [UInt8](repeating: 8, count: 100))
            try await host.send(raw: message.packets[0].report)
            await device.loop.advanceTime(by: TimeAmount(device.timing.messageTimeout / 2))
            try await host.send(raw: message.packets[1].report)
            #expect(try await host.readReply(channel: channel) == message)
            await device.loop.advanceTime(by: TimeAmount(device.timing.messageTimeout) * 2)
            #expect(try await host.hasNothingToRead())
        }
    }

    @Test func cancelDuringAPromptAnswersKeepaliveCancelAfterUpNeededKeepalives() async throws {
        // §11.2.9.2.1: KEEPALIVE while a command runs, UPNEEDED while it waits for the user;
        // §11.2.9.1.5: CANCEL has no reply of its own, the command answers KEEPALIVE_CANCEL.
        try await withEmbeddedDevice { device in
            let host = try await device.connect()
            let channel = try await host.initialize()
            try await host.startPrompt(on: channel, device: device)
            let half = TimeAmount(device.timing.keepaliveInterval / 2)
            // A transaction's first keepalive comes once it has run half an interval.
            await device.loop.advanceTime(by: half - .nanoseconds(1))
            #expect(try await host.hasNothingToRead())
            await device.loop.advanceTime(by: .nanoseconds(1))
            #expect(
                try await host.readMessage(channel: channel)
                    == CTAPHIDMessage(
                        channel: channel, command: .keepalive, payload: [KeepaliveStatus.userPresenceNeeded.rawValue]))
            await device.loop.advanceTime(by: half)
            #expect(try await host.readMessage(channel: channel).command == .keepalive)
            try await host.send(CTAPHIDMessage(channel: channel, command: .cancel))
            #expect(
                try await host.readReply(channel: channel)
                    == CTAPHIDMessage(
                        channel: channel, command: .cbor, payload: [CTAPStatus.keepaliveCancel.rawValue]))
            // The device is free again, and the ticker stopped with the transaction.
            #expect(
                try await host.transact(CTAPHIDMessage(channel: channel, command: .cbor, payload: [0x04])).payload == [
                    0x00, 0xA0
                ])
            await device.loop.advanceTime(by: half * 4)
            #expect(try await host.hasNothingToRead())
        }
    }

    @Test func anotherChannelOfTheConnectionMidMessageIsChannelBusy() async throws {
        // §11.2.9.1.6 ERR_CHANNEL_BUSY: packets of a second channel interleaved with a message in reception.
        try await withEmbeddedDevice { device in
            let host = try await device.connect()
            let first = try await host.initialize()
            let second = try await host.initialize()
            let message = CTAPHIDMessage(channel: first, command: .ping, payload: [UInt8](repeating: 3, count: 100))
            try await host.send(
                raw: message.packets[0].report + CTAPHIDMessage(channel: second, command: .ping, payload: [1]).reports)
            #expect(try await host.readReply(channel: second) == .error(.channelBusy, channel: second))
            try await host.send(raw: message.packets[1].report)
            #expect(try await host.readReply(channel: first) == message)
        }
    }

    @Test func aTransactionBehindOneAwaitingItsUserIsChannelBusyOnceItsPatienceIsUp() async throws {
        // `ChannelTable`: one transaction at a time (§11.2.9); a request that finds the device
        // waiting for its user waits `busyPatience`, then gets ERR_CHANNEL_BUSY, which the host retries.
        try await withEmbeddedDevice { device in
            let prompting = try await device.connect()
            let host = try await device.connect()
            let waiting = try await prompting.initialize()
            let channel = try await host.initialize()
            try await prompting.startPrompt(on: waiting, device: device)
            // PING needs no transaction but is refused while one runs.
            #expect(
                try await host.transact(CTAPHIDMessage(channel: channel, command: .ping, payload: [1]))
                    == .error(.channelBusy, channel: channel))
            try await host.send(CTAPHIDMessage(channel: channel, command: .cbor, payload: [0x04]))
            await device.loop.advanceTime(by: TimeAmount(device.timing.busyPatience) - .nanoseconds(1))
            #expect(try await host.hasNothingToRead())
            await device.loop.advanceTime(by: .nanoseconds(1))
            #expect(try await host.readReply(channel: channel) == .error(.channelBusy, channel: channel))
            try await prompting.send(CTAPHIDMessage(channel: waiting, command: .cancel))
            #expect(try await prompting.readReply(channel: waiting).payload == [CTAPStatus.keepaliveCancel.rawValue])
            #expect(
                try await host.transact(CTAPHIDMessage(channel: channel, command: .cbor, payload: [0x04])).payload == [
                    0x00, 0xA0
                ])
        }
    }

    @Test func aTransactionBehindOneComputingWaitsForItWhateverTheTime() async throws {
        // `ChannelTable`: a device that computes is waited for, as a hardware key's USB stack holds the report.
        try await withEmbeddedDevice { device in
            let computing = try await device.connect()
            let host = try await device.connect()
            let slow = try await computing.initialize()
            let channel = try await host.initialize()
            // FakeHandler computes 0x0C for 50 × 10 ms of real time, on the pool.
            try await computing.send(CTAPHIDMessage(channel: slow, command: .cbor, payload: [0x0C, 50]))
            try await host.send(CTAPHIDMessage(channel: channel, command: .cbor, payload: [0x04]))
            await device.loop.advanceTime(by: TimeAmount(device.timing.busyPatience) * 20)
            #expect(try await computing.readReply(channel: slow).payload == [0x00, 0x0C, 50])
            #expect(try await host.readReply(channel: channel).payload == [0x00, 0xA0])
        }
    }

    @Test func initOnAnAllocatedChannelMidMessageResynchronisesIt() async throws {
        // §11.2.9.1.3: INIT on an allocated channel drops what it was receiving and answers there.
        try await withEmbeddedDevice { device in
            let host = try await device.connect()
            let channel = try await host.initialize()
            try await host.send(
                raw: CTAPHIDMessage(channel: channel, command: .ping, payload: [UInt8](repeating: 1, count: 200))
                    .packets[0].report)
            let nonce: [UInt8] = [1, 1, 2, 3, 5, 8, 13, 21]
            let reply = try await host.transact(CTAPHIDMessage(channel: channel, command: .`init`, payload: nonce))
            let response = try #require(CTAPHIDInitResponse(payload: reply.payload))
            #expect(reply.channel == channel && response.channel == channel && response.nonce == nonce)
            #expect(
                try await host.transact(CTAPHIDMessage(channel: channel, command: .ping, payload: [42])).payload == [42]
            )
            // The abandoned message's timer is gone with it.
            await device.loop.advanceTime(by: TimeAmount(device.timing.messageTimeout) * 2)
            #expect(try await host.hasNothingToRead())
        }
    }
}

/// The one device, its `FakeHandler` behind a presence prompt, and connections to it on a
/// `NIOAsyncTestingEventLoop`, whose clock moves only when a test advances it.
///
/// Not `EmbeddedChannel`: the connection is an actor whose executor is its channel's event loop
/// (`CTAPHIDConnection.unownedExecutor`), and `EmbeddedEventLoop` cannot be a `SerialExecutor`
/// (it is bound to the thread that made it); `NIOAsyncTestingEventLoop`, from the same
/// NIOEmbedded module, can, with the same manual clock (`advanceTime`).
struct EmbeddedDevice {
    let loop = NIOAsyncTestingEventLoop()
    let timing = CTAPHIDServer.Timing()
    let controls = TestControls()
    let handler: FakeHandler
    let device: CTAPHIDDevice
    /// The connections opened, closed when the test ends.
    private let opened = Connections()

    init() {
        let broker = PromptBroker(controls: controls)
        handler = FakeHandler(presence: DaemonUserPresence(mode: .prompt, broker: broker))
        device = CTAPHIDDevice(
            handler: handler, broker: broker, controls: controls, info: DaemonInfo(socketPath: "embedded"))
    }

    func connect() async throws -> EmbeddedHost {
        let host = try await EmbeddedHost(device: device, loop: loop, timing: timing)
        await opened.add(host.connection, host.channel)
        return host
    }

    /// Closes every connection as a peer's leaving does (its transaction cancelled, its channels
    /// freed), then the loop, running what is left on it.
    func close() async {
        await opened.closeAll()
        await loop.shutdownGracefully()
    }

    private actor Connections {
        private var opened: [(CTAPHIDConnection, NIOAsyncTestingChannel)] = []

        func add(_ connection: CTAPHIDConnection, _ channel: NIOAsyncTestingChannel) {
            opened.append((connection, channel))
        }

        func closeAll() async {
            for (connection, channel) in opened {
                try? await channel.close()
                await connection.close()
            }
            opened = []
        }
    }
}

/// Runs `body` with a fresh device, and closes it afterwards, even on failure.
func withEmbeddedDevice(_ body: (EmbeddedDevice) async throws -> Void) async throws {
    let device = EmbeddedDevice()
    do { try await body(device) } catch {
        await device.close()
        throw error
    }
    await device.close()
}

/// One connection of the device on a `NIOAsyncTestingChannel`: the daemon's channel handler and
/// connection actor, wired as `CTAPHIDServer` wires them, with no socket under them.
final class EmbeddedHost: HIDHost {
    let id: CTAPHIDDevice.ConnectionID
    let channel: NIOAsyncTestingChannel
    let connection: CTAPHIDConnection
    private let loop: NIOAsyncTestingEventLoop
    private var pending: [UInt8] = []

    init(device: CTAPHIDDevice, loop: NIOAsyncTestingEventLoop, timing: CTAPHIDServer.Timing) async throws {
        let id = device.register()
        let channel = NIOAsyncTestingChannel(loop: loop)
        let logger = Logger(label: "passkeyd.embedded")
        let connection = CTAPHIDConnection(
            id: id, device: device, timing: timing, executor: EventLoopTaskExecutor(loop), logger: logger,
            drop: { _ in channel.close(promise: nil) },
            stream: { reports in try? await channel.writeAndFlush(ByteBuffer(bytes: reports)) },
            pauseReading: { paused in try? channel.syncOptions?.setOption(.autoRead, value: !paused) }
        ) { reports, _ in channel.writeAndFlush(ByteBuffer(bytes: reports), promise: nil) }
        try await loop.executeInContext {
            try channel.pipeline.syncOperations.addHandler(
                CTAPHIDChannelHandler(connection: connection, logger: logger) {})
        }
        (self.id, self.channel, self.connection, self.loop) = (id, channel, connection, loop)
    }

    /// Hands `bytes` to the pipeline as a read, then runs what that read queued on the loop, as
    /// a real loop does once its read handler returns (jobs the loop queues for itself run only
    /// when the testing loop is told to run).
    func send(raw bytes: [UInt8]) async throws {
        try await channel.writeInbound(ByteBuffer(bytes: bytes))
        await loop.run()
    }

    func readReport() async throws -> CTAPHIDPacket {
        while pending.count < CTAPHIDPacket.size {
            pending += try await channel.waitForOutboundWrite(as: ByteBuffer.self).readableBytesView
        }
        defer { pending.removeFirst(CTAPHIDPacket.size) }
        return try CTAPHIDPacket(report: pending[0..<CTAPHIDPacket.size])
    }

    /// True when the device has written nothing unread, once the loop has run what is due now.
    func hasNothingToRead() async throws -> Bool {
        await loop.run()
        let unread = try await channel.readOutbound(as: ByteBuffer.self)
        return pending.isEmpty && unread == nil
    }

    /// Sends a request that asks for the user's presence (FakeHandler's 0x01) and returns once
    /// the prompt is pending: the transaction has reported UPNEEDED and holds the device.
    func startPrompt(on channel: UInt32, device: EmbeddedDevice) async throws {
        let events = await device.controls.watch()
        try await send(CTAPHIDMessage(channel: channel, command: .cbor, payload: [0x01]))
        _ = await events.first { $0.kind == .promptPending }
    }
}
