import Authenticator
import CTAP
import CTAPHID
import Foundation
import Logging
import NIOCore
import PasskeydLocal
import Synchronization

/// One open handle on the virtual device: turns the connection's byte stream
/// into 64-byte reports, reassembles messages, and answers each on the channel
/// that asked (CTAP 2.1 §11.2). Malformed input always gets a CTAPHID_ERROR.
///
/// The actor runs on its connection's event loop (`unownedExecutor`), so the loop's read
/// handler hands it the bytes synchronously (`CTAPHIDChannelHandler`): a sign-in's request
/// is reassembled, its channel checked and its transaction started within the read, with no
/// job through the loop's queue, no async sequence between NIO and this actor, and no hop
/// back. A message whose handling must wait (INIT resynchronising a channel, the vendor
/// commands) continues in a task; the reports after it wait for it, and reading pauses meanwhile.
actor CTAPHIDConnection {
    /// Queues reports for the connection's writer, saying whether the event loop should poll
    /// for the host's next request afterwards (`BusyPoll`). Not async on purpose: a
    /// cancelled transaction must still get its KEEPALIVE_CANCEL answer out.
    typealias Send = @Sendable (_ reports: [UInt8], _ pollAfter: Bool) -> Void
    /// Stops reading from the socket (true) or resumes it (false), while a message awaits.
    typealias PauseReading = @Sendable (Bool) -> Void
    /// Writes reports and waits until the socket takes them: for a watch stream.
    typealias Stream = @Sendable ([UInt8]) async -> Void

    private let id: CTAPHIDDevice.ConnectionID
    private let device: CTAPHIDDevice
    private let timing: CTAPHIDServer.Timing
    /// The connection's event loop, where quick transactions run.
    private let executor: EventLoopTaskExecutor
    /// Which transactions run on that loop, and where they wait for the flush.
    private let quickTransactions: QuickTransactions
    /// The same loop, as this actor's executor.
    private nonisolated let loop: any SerialExecutor
    private let pauseReading: PauseReading
    /// Handles the message that must wait; later reports stay in `buffer` until it is done.
    private var awaiting: Task<Void, Never>?
    private let send: Send
    private let stream: Stream
    /// Forwards device events to a watching channel (vendor command WATCH).
    private var watching: Task<Void, Never>?
    /// Closes this connection, saying why: for a peer past the limits.
    private let drop: @Sendable (String) -> Void
    /// Who connected (SO_PEERCRED), for the log of prompt answers.
    private let requester: PeerCredentials?
    private let logger: Logger

    private var buffer: [UInt8] = []
    private var reassembler = CTAPHIDReassembler()
    /// Bumped whenever the message in reception changes, so stale timers do nothing.
    private var timeoutGeneration: UInt64 = 0
    private var timer: Scheduled<Void>?
    /// `began` is the event loop's time (`EventLoop.now`), the clock both timers keep.
    private var running: (channel: UInt32, id: UInt64, task: Task<Void, Never>, began: NIODeadline)?
    /// Sends the running transaction's keepalives: one ticker for the connection while its
    /// transactions run, not a timer armed and cancelled per command.
    private var keepaliveTicker: Scheduled<Void>?
    /// What the running transaction's keepalives say, as the authenticator last reported: the
    /// transaction's number shifted left by 8, or'd with the status byte. An atomic word, not
    /// actor state: the authenticator reports twice per sign-in (UPNEEDED, then PROCESSING
    /// again), and a visit to this actor for each cost four executor switches, each a job
    /// through the event loop's queue. One word, written by the running transaction and read
    /// by the keepalive ticker, which at worst says the status of a moment before.
    private let progress = Atomic<UInt64>(0)
    private var nextTransaction: UInt64 = 0
    /// Transactions whose answer must not be sent: their channel resynchronised.
    private var silenced: Set<UInt64> = []
    private var isClosed = false

    init(
        id: CTAPHIDDevice.ConnectionID, device: CTAPHIDDevice, timing: CTAPHIDServer.Timing,
        executor: EventLoopTaskExecutor,
        quickTransactions: QuickTransactions = QuickTransactions(), requester: PeerCredentials? = nil,
        logger: Logger, drop: @escaping @Sendable (String) -> Void, stream: @escaping Stream,
        pauseReading: @escaping PauseReading, send: @escaping Send
    ) {
        self.executor = executor
        self.quickTransactions = quickTransactions
        self.requester = requester
        loop = executor.eventLoop.executor
        self.pauseReading = pauseReading
        self.drop = drop
        self.stream = stream
        self.id = id
        self.device = device
        self.timing = timing
        self.logger = logger
        self.send = send
    }

    nonisolated var unownedExecutor: UnownedSerialExecutor { loop.asUnownedSerialExecutor() }

    /// Bytes as they arrive, on the connection's event loop; reports may be split or joined
    /// arbitrarily by the stream.
    func receive(_ bytes: ByteBufferView) {
        guard !isClosed else { return }
        buffer.append(contentsOf: bytes)
        if awaiting == nil { process(advanced: false) }
    }

    /// Takes every whole report in `buffer` in order, until one completes a message that must
    /// wait (`awaitingDispatch`): the rest stay for when it is done.
    private func process(advanced: Bool) {
        var offset = 0
        var advanced = advanced
        while buffer.count - offset >= CTAPHIDPacket.size {
            let report = buffer[offset..<offset + CTAPHIDPacket.size]
            offset += CTAPHIDPacket.size
            // A 64-byte report always parses; only its meaning can be wrong.
            guard let packet = try? CTAPHIDPacket(report: report) else { continue }
            switch reassembler.accept(packet) {
            case .incomplete:
                advanced = true
            case .complete(let message):
                if reassembler.receivingChannel == nil { disarmTimer() }
                if !dispatch(message) {
                    buffer.removeFirst(offset)
                    return wait(for: message, advanced: advanced)
                }
            case .ignored:
                break
            case .failed(let channel, let error):
                if reassembler.receivingChannel == nil { disarmTimer() }
                logger.debug("CTAPHID error", metadata: ["channel": "\(hex(channel))", "error": "\(error.specName)"])
                reply(.error(error, channel: channel))
            }
        }
        buffer.removeFirst(offset)
        // Armed once per read, not per packet: a message that arrives whole in one read
        // never starts a timer.
        if advanced, reassembler.receivingChannel != nil { armTimer() }
    }

    /// Handles `message` in a task; reading pauses, and the reports after it are taken once it is done.
    private func wait(for message: CTAPHIDMessage, advanced: Bool) {
        pauseReading(true)
        awaiting = Task(executorPreference: executor) { await self.finishAwaiting(message, advanced: advanced) }
    }

    private func finishAwaiting(_ message: CTAPHIDMessage, advanced: Bool) async {
        await dispatchAwaiting(message)
        guard !isClosed else { return }
        awaiting = nil
        process(advanced: advanced)
        if awaiting == nil { pauseReading(false) }
    }

    /// The peer went away: its channels are freed and its transaction cancelled.
    func close() async {
        isClosed = true
        timer?.cancel()
        watching?.cancel()
        keepaliveTicker?.cancel()
        reassembler.abandon()
        // A transaction still waiting for the device never runs.
        device.channels.withdraw(connection: id)
        if let running {
            running.task.cancel()
            await running.task.value
        }
        // A message that was waiting ends with its transaction (or its vendor command's answer).
        await awaiting?.value
        await device.release(id)
    }

    // MARK: Message timeout (§11.2.4: an incomplete message is abandoned with ERR_MSG_TIMEOUT)

    /// Both timers (this one and the keepalive ticker) are the event loop's scheduled tasks, not
    /// sleeping `Task`s: they fire on this actor's executor with no hop, and they keep the loop's
    /// clock, so a test on `NIOAsyncTestingChannel` moves them with `advanceTime`, no sleeps.
    private func armTimer() {
        timeoutGeneration += 1
        let generation = timeoutGeneration
        timer?.cancel()
        timer = executor.eventLoop.scheduleTask(in: TimeAmount(timing.messageTimeout)) { [weak self] in
            self?.assumeIsolated { $0.messageTimedOut(generation: generation) }
        }
    }

    private func disarmTimer() {
        timeoutGeneration += 1
        timer?.cancel()
        timer = nil
    }

    private func messageTimedOut(generation: UInt64) {
        guard generation == timeoutGeneration, let channel = reassembler.abandon() else { return }
        reply(.error(.messageTimeout, channel: channel), pollAfter: false)
    }

    // MARK: Commands (§11.2.9)

    /// Handles `message` at once, as the loop read it; false when its handling must wait
    /// (`dispatchAwaiting`): INIT resynchronising a channel, and the vendor commands.
    private func dispatch(_ message: CTAPHIDMessage) -> Bool {
        let channel = message.channel
        guard channel != CTAPHIDChannel.reserved else {
            reply(.error(.invalidChannel, channel: channel))
            return true
        }
        if message.command == .`init` {
            guard message.payload.count == CTAPHIDInitResponse.nonceLength else {
                reply(.error(.invalidLength, channel: channel))
                return true
            }
            // Resynchronising a channel of this connection waits for what it abandons.
            if channel != CTAPHIDChannel.broadcast, device.channels.owns(id, channel: channel) { return false }
            initialize(message)
            return true
        }
        // The common case, a CTAP message on an allocated channel: the ownership check and the
        // device's transaction taken in one step; the same checks in the same order as below
        // (a channel not this connection's is refused before a busy device).
        if channel != CTAPHIDChannel.broadcast, startsTransaction(message) {
            switch device.channels.beginTransaction(ifOwner: CTAPCaller(connection: id, channel: channel)) {
            case .notOwner: reply(.error(.invalidChannel, channel: channel))
            case .busy: return false
            case .begun: startTransaction(channel: channel, command: message.command, payload: message.payload)
            }
            return true
        }
        guard channel != CTAPHIDChannel.broadcast, device.channels.owns(id, channel: channel) else {
            reply(.error(.invalidChannel, channel: channel))
            return true
        }
        if VendorCommand(rawValue: message.command.rawValue) != nil { return false }
        switch message.command {
        case .cancel:
            // §11.2.9.1.5: no reply of its own; the cancelled command answers KEEPALIVE_CANCEL.
            if let running, running.channel == channel { running.task.cancel() }
        case .ping:
            guard !device.channels.isBusy else {
                reply(.error(.channelBusy, channel: channel))
                return true
            }
            reply(message)
        case .wink:
            guard !device.channels.isBusy else {
                reply(.error(.channelBusy, channel: channel))
                return true
            }
            logger.info("wink")
            reply(CTAPHIDMessage(channel: channel, command: .wink))
        case .cbor where device.handler.protocols.contains(.ctap2):
            // Only an empty CBOR message comes here: every other message `startsTransaction`
            // accepts began its transaction above (an empty APDU too, which the handler answers
            // with a status word, SW_WRONG_LENGTH).
            reply(.error(.invalidLength, channel: channel))
        default:
            // CBOR or MSG where the profile offers no CTAP2 (CBOR clear) or no CTAP1 (NMSG), LOCK
            // (optional, not implemented), device-to-host commands and unknown bytes.
            reply(.error(.invalidCommand, channel: channel))
        }
        return true
    }

    /// What `dispatch` left to wait for: an INIT on one of this connection's channels, a vendor
    /// command, or a transaction that found the device busy.
    private func dispatchAwaiting(_ message: CTAPHIDMessage) async {
        if message.command == .`init` { return await resynchronize(message) }
        if let vendor = VendorCommand(rawValue: message.command.rawValue) { return await handleVendor(vendor, message) }
        await startWhenFree(message)
    }

    /// Starts a transaction once the device is free, or answers ERR_CHANNEL_BUSY when it stays
    /// busy for longer than the timing's patience (`ChannelTable`).
    private func startWhenFree(_ message: CTAPHIDMessage) async {
        let caller = CTAPCaller(connection: id, channel: message.channel)
        let patience = TimeAmount(timing.busyPatience)
        guard await device.channels.waitForTransaction(caller, on: executor.eventLoop, patience: patience) else {
            return reply(.error(.channelBusy, channel: message.channel))
        }
        // Handed the device as the peer left: the next one waiting takes it.
        guard !isClosed else { return device.channels.endTransaction(caller) }
        startTransaction(channel: message.channel, command: message.command, payload: message.payload)
    }

    /// §11.2.9.1.3: INIT on broadcast allocates a channel; on a channel nobody holds, adopts it.
    private func initialize(_ message: CTAPHIDMessage) {
        let channel = message.channel
        let allocated: UInt32
        if channel == CTAPHIDChannel.broadcast {
            guard let channel = device.channels.allocateChannel(for: id) else {
                return drop("more than \(CTAPHIDServer.Limits.channelsPerConnection) channels")
            }
            allocated = channel
        } else {
            // A channel nobody holds is adopted, as hardware keys do for a host that kept
            // its CID across a replug; another connection's stays refused.
            switch device.channels.adoptChannel(channel, for: id) {
            case .adopted: allocated = channel
            case .taken: return reply(.error(.invalidChannel, channel: channel))
            case .overLimit: return drop("more than \(CTAPHIDServer.Limits.channelsPerConnection) channels")
            }
        }
        answerInit(message, allocated: allocated)
    }

    /// §11.2.9.1.3: INIT on an allocated channel resynchronises it (abandons what it was
    /// doing) and keeps the CID.
    private func resynchronize(_ message: CTAPHIDMessage) async {
        let channel = message.channel
        // The reassembler already dropped any message in reception on this
        // channel when it accepted this INIT (§11.2.9.1.3).
        if let running, running.channel == channel {
            silenced.insert(running.id)
            running.task.cancel()
            // The device is free once the INIT is answered: the host's next command
            // must not meet ERR_CHANNEL_BUSY from the transaction it abandoned.
            await running.task.value
        }
        // A resynchronised channel starts afresh: nothing it began continues.
        await device.handler.release(CTAPCaller(connection: id, channel: channel))
        answerInit(message, allocated: channel)
    }

    private func answerInit(_ message: CTAPHIDMessage, allocated: UInt32) {
        let response = CTAPHIDInitResponse(
            nonce: message.payload, channel: allocated, majorVersion: DaemonInfo.majorVersion,
            minorVersion: DaemonInfo.minorVersion, buildVersion: DaemonInfo.buildVersion,
            capabilities: CTAPHIDServer.capabilities(device.handler.protocols))
        reply(CTAPHIDMessage(channel: message.channel, command: .`init`, payload: response.payload))
    }

    /// Every answer to a prompt leaves a line naming the prompt, its RP and who answered: any
    /// process of the user may answer (the socket admits only the user), so the log is how a
    /// user finds out which one did (docs/vendor-commands.md).
    private func logPresenceAnswer(approve: Bool, named id: UInt64?, answered prompt: PromptBroker.Prompt?) {
        let requester =
            requester.map { "pid \($0.pid)\(Self.commandName(of: $0.pid).map { " (\($0))" } ?? "")" } ?? "unknown"
        guard let prompt else {
            return logger.info(
                "prompt answer found no pending prompt",
                metadata: [
                    "answer": "\(approve ? "approve" : "deny")", "prompt": "\(id.map(String.init) ?? "any")",
                    "requester": "\(requester)"
                ])
        }
        logger.notice(
            approve ? "prompt approved" : "prompt denied",
            metadata: [
                "prompt": "\(prompt.id)", "kind": "\(prompt.kind.rawValue)", "rp": "\(prompt.rpID ?? "-")",
                "named": "\(id != nil)", "requester": "\(requester)"
            ])
    }

    /// /proc/PID/comm: the program's name, as ps shows it.
    private static func commandName(of pid: pid_t) -> String? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8) else { return nil }
        return text.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    private func handleVendor(_ command: VendorCommand, _ message: CTAPHIDMessage) async {
        let channel = message.channel
        switch command {
        case .presence:
            // 1 byte (approve/deny), optionally followed by the 8-byte prompt id it answers.
            guard message.payload.count == 1 || message.payload.count == 9 else {
                return reply(.error(.invalidLength, channel: channel))
            }
            guard message.payload[0] <= 1 else { return reply(.error(.invalidParameter, channel: channel)) }
            let id = message.payload.count == 9 ? message.payload[1...].reduce(UInt64(0)) { $0 << 8 | UInt64($1) } : nil
            let approve = message.payload[0] == 1
            let prompt = await device.broker.answer(approve: approve, id: id)
            logPresenceAnswer(approve: approve, named: id, answered: prompt)
            reply(CTAPHIDMessage(channel: channel, command: message.command, payload: [prompt != nil ? 1 : 0]))
        case .replug:
            logger.info("simulated replug")
            await device.handler.powerCycle()
            reply(CTAPHIDMessage(channel: channel, command: message.command))
        case .status:
            reply(CTAPHIDMessage(channel: channel, command: message.command, payload: await device.status()))
        case .fault:
            let request: FaultCommand
            do { request = try FaultCommand(bytes: message.payload) } catch {
                return reply(CTAPHIDMessage(channel: channel, command: message.command, payload: [error.rawValue]))
            }
            let armed: [FaultRule]
            switch request {
            case .set(let rule): armed = await device.controls.arm(rule)
            case .list: armed = await device.controls.armed
            case .clear:
                await device.controls.clear()
                armed = []
            }
            reply(
                CTAPHIDMessage(
                    channel: channel, command: message.command,
                    payload: [CTAPStatus.success.rawValue] + FaultCommand.encodeReply(armed)))
        case .controls:
            let request: ControlsCommand
            do { request = try ControlsCommand(bytes: message.payload) } catch {
                return reply(CTAPHIDMessage(channel: channel, command: message.command, payload: [error.rawValue]))
            }
            var settings: ControlSettings
            switch request {
            case .get: settings = await device.controls.settings
            case .set(let change, let clearConditional):
                settings = await device.controls.apply(change, clearConditional: clearConditional)
            case .reset:
                await device.controls.resetSettings()
                settings = await device.controls.settings
            case .takeConditional(let rpID):
                let taken = await device.controls.takeConditional(rpID: rpID)
                settings = await device.controls.settings
                settings.conditional = taken
            }
            reply(
                CTAPHIDMessage(
                    channel: channel, command: message.command,
                    payload: [CTAPStatus.success.rawValue] + settings.cbor.encoded))
        case .watch:
            guard watching == nil else { return reply(.error(.invalidCommand, channel: channel)) }
            let events = await device.controls.watch()
            reply(CTAPHIDMessage(channel: channel, command: message.command))
            let stream = stream
            watching = Task {
                for await event in events {
                    await stream(
                        CTAPHIDMessage(channel: channel, command: message.command, payload: event.cbor.encoded).reports)
                }
            }
        }
    }

    // MARK: The CTAP transaction

    /// A CBOR message the profile's CTAP2 answers (not empty), or an APDU its CTAP1 answers
    /// (an empty one too: the handler answers it with a status word).
    private func startsTransaction(_ message: CTAPHIDMessage) -> Bool {
        switch message.command {
        case .cbor: message.payload.first.map(device.handler.answersCBOR(command:)) ?? false
        case .msg: device.handler.protocols.contains(.ctap1)
        default: false
        }
    }

    /// Runs a CBOR message (CTAP2) or an APDU (CTAP1, CTAPHID_MSG); the answer goes back
    /// under the same command.
    private func startTransaction(channel: UInt32, command: CTAPHIDCommand, payload: [UInt8]) {
        nextTransaction += 1
        let transactionID = nextTransaction
        progress.store(transactionID << 8 | UInt64(KeepaliveStatus.processing.rawValue), ordering: .releasing)
        let (device, handler) = (device, device.handler)
        let caller = CTAPCaller(connection: id, channel: channel)
        // Synchronous on purpose: Swift 6.3 compiles an async closure literal as `@concurrent`
        // (it hops to the global executor, then a thunk hops back), even where its type says
        // `nonisolated(nonsending)`: four jobs through the event loop's queue per sign-in (the
        // authenticator reports UPNEEDED, then PROCESSING). A synchronous closure converted to
        // the handler's type runs on the caller's executor.
        let report: @Sendable (KeepaliveStatus) -> Void = { [weak self] status in
            self?.report(status, transaction: transactionID)
            device.channels.setAwaitingUser(status == .userPresenceNeeded, by: caller)
        }
        // Sign-ins, registrations and getInfo run on the connection's event loop (`QuickTransactions`).
        let quick = quickTransactions.runOnLoop(command, payload: payload)
        let executor = executor
        let quickTransactions = quickTransactions
        let preference: (any TaskExecutor)? = quick ? executor : nil
        // The peer rides along as a task-local, so a prompt can name the program that asks
        // (`PromptRequester`); /proc is read only when a prompt is shown.
        let task = PromptRequester.$peer.withValue(requester) {
            Task(executorPreference: preference) { [weak self] in
                let answer =
                    command == .msg
                    ? await handler.handleAPDU(payload, from: caller, progress: report)
                    : await handler.handleBeforeDurable(payload, from: caller, progress: report)
                // Free the device before the store's flush: the next transaction, from any
                // channel, runs meanwhile and its registration shares a later flush (group
                // commit). This answer still waits for the flush covering everything before it.
                device.channels.endTransaction(caller)
                // The flush runs on the waiting task's thread: this loop's, unless others share it (`LoopOccupancy`).
                let durable =
                    quick && quickTransactions.waitForFlushOffLoop(handler)
                    ? await withTaskExecutorPreference(globalConcurrentExecutor) { await handler.durable() }
                    : await handler.durable()
                // ISO 7816-4 0x6F00 (no precise diagnosis) for an APDU, CTAP1_ERR_OTHER for CBOR.
                let response = durable ? answer : command == .msg ? [0x6F, 0x00] : [CTAPStatus.other.rawValue]
                // A `drop` fault: the device vanished mid-transaction, as an unplug does.
                if await device.controls.takeDrop(caller) {
                    await self?.unplug()
                    return
                }
                guard let self else { return }
                // A quick transaction ends on the connection's event loop, this actor's executor: it
                // answers from here, without a job through the loop's queue to enter the actor.
                if quick, executor.eventLoop.inEventLoop {
                    finishOnLoop(transactionID, channel: channel, command: command, response: response)
                } else {
                    await self.finishTransaction(
                        transactionID, channel: channel, command: command, response: response, quick: quick)
                }
            }
        }
        running = (channel, transactionID, task, executor.eventLoop.now)
        if keepaliveTicker == nil { startKeepalives() }
    }

    /// §11.2.9.2.1: a KEEPALIVE at least every 100 ms while a command runs. The ticker wakes
    /// every half interval; a transaction's first keepalive comes once it has run half an
    /// interval, so a quick command gets none. It ends when a tick finds no transaction.
    private func startKeepalives() {
        let half = TimeAmount(timing.keepaliveInterval / 2)
        keepaliveTicker = executor.eventLoop.scheduleTask(in: half) { [weak self] in
            self?.assumeIsolated { $0.keepaliveTick(half) }
        }
    }

    /// Sends the keepalive due, and schedules the next tick while a transaction runs.
    private func keepaliveTick(_ half: TimeAmount) {
        guard let running, !isClosed else {
            keepaliveTicker = nil
            return
        }
        if executor.eventLoop.now - running.began >= half {
            keepalive(channel: running.channel, transaction: running.id)
        }
        startKeepalives()
    }

    private func unplug() {
        running = nil
        drop("a drop fault unplugged the device")
    }

    /// Only while `transaction` is the latest one begun: a late report of an earlier one is dropped.
    private nonisolated func report(_ status: KeepaliveStatus, transaction: UInt64) {
        var current = progress.load(ordering: .acquiring)
        while current >> 8 == transaction {
            let (exchanged, found) = progress.compareExchange(
                expected: current, desired: transaction << 8 | UInt64(status.rawValue), ordering: .acquiringAndReleasing
            )
            if exchanged { return }
            current = found
        }
    }

    /// A KEEPALIVE only for a transaction still owed an answer: none once its
    /// channel resynchronised (§11.2.9.1.3) or the peer went away.
    private func keepalive(channel: UInt32, transaction: UInt64) {
        guard !isClosed, !silenced.contains(transaction) else { return }
        let word = progress.load(ordering: .acquiring)
        let status = word >> 8 == transaction ? UInt8(truncatingIfNeeded: word) : KeepaliveStatus.processing.rawValue
        send(CTAPHIDMessage(channel: channel, command: .keepalive, payload: [status]).reports, false)
    }

    /// `finishTransaction` for a quick transaction's task, on the event loop: the thread is
    /// this actor's executor, so the task may act as the actor (NIO's `checkIsolated`).
    private nonisolated func finishOnLoop(
        _ transactionID: UInt64, channel: UInt32, command: CTAPHIDCommand, response: [UInt8]
    ) {
        assumeIsolated {
            $0.finishTransaction(transactionID, channel: channel, command: command, response: response, quick: true)
        }
    }

    /// The answer of a transaction that ran on the pool (`quick` false) starts no polling: the
    /// loop leaves the core to the threads doing that work, as when such answers were written from there.
    private func finishTransaction(
        _ transactionID: UInt64, channel: UInt32, command: CTAPHIDCommand, response: [UInt8], quick: Bool
    ) {
        if running?.id == transactionID { running = nil }
        guard silenced.remove(transactionID) == nil else { return }
        reply(CTAPHIDMessage(channel: channel, command: command, payload: response), pollAfter: quick)
    }

    /// `pollAfter`: whether the host's next request is expected soon (`BusyPoll`): after an
    /// answer to what it sent, not after a timeout's error.
    private func reply(_ message: CTAPHIDMessage, pollAfter: Bool = true) {
        guard !isClosed else { return }
        // A payload too long for CTAPHID cannot be framed; say so rather than crash.
        let message =
            message.payload.count <= CTAPHIDPacket.maxMessageLength
            ? message
            : CTAPHIDMessage(channel: message.channel, command: .cbor, payload: [CTAPStatus.requestTooLarge.rawValue])
        send(message.reports, pollAfter)
    }

    private func hex(_ channel: UInt32) -> String { String(channel, radix: 16) }
}
