import Authenticator
import CTAP
import CTAPHID
import Foundation
import Logging
import NIOCore
import NIOPosix
import PasskeydLocal

#if canImport(Glibc)
    import Glibc
#endif

/// The CTAPHID server on a `SOCK_STREAM` Unix socket: each connection is one
/// open handle on the one virtual HID device, carrying 64-byte reports back to
/// back in both directions, no report-ID byte.
public final class CTAPHIDServer: Sendable {
    /// The timings of CTAP 2.1 §11.2: how long an incomplete message may wait,
    /// and how often KEEPALIVE goes out while a command runs (at least every 100 ms).
    public struct Timing: Sendable {
        public var messageTimeout: Duration
        public var keepaliveInterval: Duration
        /// How long a transaction that finds the device waiting for its user (UPNEEDED) waits
        /// before it is answered ERR_CHANNEL_BUSY (`ChannelTable`); one that finds it computing
        /// waits until it is free. Shorter than a keepalive interval, since a waiting
        /// transaction gets no keepalives.
        public var busyPatience: Duration

        public init(
            messageTimeout: Duration = .milliseconds(500), keepaliveInterval: Duration = .milliseconds(75),
            busyPatience: Duration = .milliseconds(25)
        ) {
            self.messageTimeout = messageTimeout
            self.keepaliveInterval = keepaliveInterval
            self.busyPatience = busyPatience
        }
    }

    public struct Configuration: Sendable {
        public var socketPath: String
        public var timing: Timing
        /// Peers of any other uid are refused (SO_PEERCRED); our own by default.
        public var allowedPeerUID: uid_t
        /// Bound here, or inherited from a service manager.
        public var listener: ListeningSocket
        /// How long a connection's event loop keeps polling after an answer before it sleeps
        /// (`BusyPoll`); zero never polls.
        public var busyPoll: Duration

        /// The busy-polling budget unless told otherwise: longer than a host takes between
        /// reading one answer and sending its next request, as KVM's default halt polling is.
        public static let defaultBusyPoll: Duration = .microseconds(200)
        /// Whether quick transactions run on their connection's event loop (`EventLoopTaskExecutor`);
        /// false sends every transaction to the pool, the plain path: a bench and diagnosis
        /// switch (`PASSKEYD_SPEED_OFF=executor`).
        public var quickTransactionsOnLoop: Bool

        public init(
            socketPath: String, timing: Timing = .init(), allowedPeerUID: uid_t = getuid(),
            listener: ListeningSocket = .bind,
            busyPoll: Duration = defaultBusyPoll, quickTransactionsOnLoop: Bool = true
        ) {
            self.socketPath = socketPath
            self.timing = timing
            self.allowedPeerUID = allowedPeerUID
            self.listener = listener
            self.busyPoll = busyPoll
            self.quickTransactionsOnLoop = quickTransactionsOnLoop
        }
    }

    /// What one connection may hold; past either, that connection is dropped.
    enum Limits {
        /// Bytes of replies written but not yet taken by the peer's socket (the channel's high
        /// watermark, beyond what the kernel buffers): 1 MiB, over a hundred of the longest
        /// answers (7 609 bytes), as the 256-reply queue it replaced held.
        static let unreadReplyBytes = 256 * 4096
        /// Channels allocated by broadcast INITs (a host needs one; hardware keys hold a few).
        static let channelsPerConnection = 64
    }

    /// CBOR unless the handler offers no CTAP2 (NCBOR), NMSG unless it offers CTAP1/U2F;
    /// WINK is answered, so it is advertised (CTAP 2.1 §11.2.9.1.3).
    static func capabilities(_ protocols: CTAPProtocols) -> CTAPHIDCapabilities {
        var capabilities: CTAPHIDCapabilities = [.wink]
        if protocols.contains(.ctap2) { capabilities.insert(.cbor) }
        if !protocols.contains(.ctap1) { capabilities.insert(.nmsg) }
        return capabilities
    }

    public let socketPath: String
    private let acceptor: Acceptor
    private let lockDescriptor: Int32
    private let listener: ListeningSocket
    private let acceptTask: Task<Void, Never>
    private let logger: Logger
    /// The one device every connection shares.
    let device: CTAPHIDDevice

    private init(
        socketPath: String, device: CTAPHIDDevice, acceptor: Acceptor, lockDescriptor: Int32,
        listener: ListeningSocket, acceptTask: Task<Void, Never>, logger: Logger
    ) {
        self.socketPath = socketPath
        self.device = device
        self.acceptor = acceptor
        self.lockDescriptor = lockDescriptor
        self.listener = listener
        self.acceptTask = acceptTask
        self.logger = logger
    }

    /// Binds the socket (or takes over the inherited one) and starts accepting. When this
    /// returns, connections are accepted. An inherited socket's folder must pass the same
    /// check as one passkeyd binds itself; it is not created, since the manager made it.
    public static func start(
        configuration: Configuration, handler: any CTAP2MessageHandler, broker: PromptBroker,
        controls: TestControls = TestControls(), logger: Logger = Logger(label: "passkeyd.server")
    ) async throws(DaemonError) -> CTAPHIDServer {
        let path = configuration.socketPath
        let file = SocketFile(path: path)
        try file.prepareDirectory()
        let lock = try file.lock()
        let acceptor: Acceptor
        do {
            if configuration.listener == .bind { try file.clearStale() }
            acceptor = try Acceptor.start(
                configuration.listener, path: path, allowedUID: configuration.allowedPeerUID, logger: logger)
        } catch {
            close(lock)
            throw error
        }
        chmod(path, 0o600)

        let device = CTAPHIDDevice(
            handler: handler, broker: broker, controls: controls, info: DaemonInfo(socketPath: path))
        let timing = configuration.timing
        let loops = PerLoop.forEachLoop(
            of: MultiThreadedEventLoopGroup.singleton, busyPoll: configuration.busyPoll,
            quickTransactions: configuration.quickTransactionsOnLoop)
        let acceptTask = Task {
            await withDiscardingTaskGroup { group in
                for await descriptor in acceptor.connections {
                    group.addTask {
                        await serve(descriptor, device: device, timing: timing, loops: loops, logger: logger)
                    }
                }
                group.cancelAll()
            }
        }
        logger.info("listening", metadata: ["socket": "\(path)"])
        return CTAPHIDServer(
            socketPath: path, device: device, acceptor: acceptor, lockDescriptor: lock,
            listener: configuration.listener,
            acceptTask: acceptTask, logger: logger)
    }

    /// Stops accepting, closes every connection (cancelling its transaction),
    /// removes the socket file (unless it was inherited) and releases the lock.
    public func stop() async {
        // The accept loop ends once the listener is closed; its connections are then cancelled.
        acceptor.stop()
        await acceptTask.value
        if listener == .bind { unlink(socketPath) }
        close(lockDescriptor)
        logger.info("stopped", metadata: ["socket": "\(socketPath)"])
    }

    /// Wraps an accepted connection in a NIO channel on one of the group's loops, and serves it
    /// until the peer goes away (or the server stops: the task's cancellation closes it).
    private static func serve(
        _ descriptor: Int32, device: CTAPHIDDevice, timing: Timing,
        loops: [ObjectIdentifier: PerLoop], logger: Logger
    ) async {
        let id = await device.register()
        var logger = logger
        logger[metadataKey: "connection"] = "\(id)"
        let served: (channel: any Channel, connection: CTAPHIDConnection)
        do {
            served = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .channelOption(
                    .writeBufferWaterMark, value: .init(low: Limits.unreadReplyBytes / 2, high: Limits.unreadReplyBytes)
                )
                .withConnectedSocket(descriptor) { [logger] channel in
                    channel.eventLoop.makeCompletedFuture {
                        try serve(
                            channel, id: id, device: device, timing: timing, loops: loops, descriptor: descriptor,
                            logger: logger)
                    }
                }
        } catch {
            // NIO owns the descriptor once it made a channel of it, and closed it with the channel.
            logger.warning("cannot serve a connection", metadata: ["error": "\(error)"])
            return
        }
        logger.debug("connected")
        await withTaskCancellationHandler {
            try? await served.channel.closeFuture.get()
        } onCancel: {
            served.channel.close(promise: nil)
        }
        await served.connection.close()
        logger.debug("disconnected")
    }

    /// The connection of a new channel, on its event loop, before the channel reads anything.
    private static func serve(
        _ channel: any Channel, id: CTAPHIDDevice.ConnectionID, device: CTAPHIDDevice, timing: Timing,
        loops: [ObjectIdentifier: PerLoop], descriptor: Int32, logger: Logger
    ) throws -> (channel: any Channel, connection: CTAPHIDConnection) {
        // Quick transactions run on the connection's event loop (`EventLoopTaskExecutor` says why).
        let executor = EventLoopTaskExecutor(channel.eventLoop)
        let loop = loops[ObjectIdentifier(channel.eventLoop)]
        let (busyPoll, occupancy) = (loop?.busyPoll, loop?.occupancy)
        busyPoll?.watch(descriptor)
        occupancy?.enter()
        let drop: @Sendable (String) -> Void = { [logger] reason in
            logger.warning("dropping connection", metadata: ["reason": "\(reason)"])
            channel.close(promise: nil)
        }
        // A watch stream writes with the socket's backpressure: its events wait in the
        // watcher's own bounded buffer, which drops and counts (TestControls).
        let stream: CTAPHIDConnection.Stream = { reports in
            try? await channel.writeAndFlush(ByteBuffer(bytes: reports)).get()
        }
        // Replies go straight to the channel, in the order the connection sends them (no writer
        // task to wake per reply). Bounded: a peer that writes and never reads is dropped once
        // its unread replies pass the channel's high watermark, never anyone else's memory.
        // Both closures are called by the connection, whose executor is the channel's loop.
        let connection = CTAPHIDConnection(
            id: id, device: device, timing: timing, executor: executor,
            quickTransactionsOnLoop: loop?.runsQuickTransactions ?? true,
            occupancy: occupancy,
            requester: PeerCredentials(of: descriptor), logger: logger, drop: drop, stream: stream,
            pauseReading: { paused in try? channel.syncOptions?.setOption(.autoRead, value: !paused) }
        ) { reports, pollAfter in
            guard channel.isWritable else { return drop("\(Limits.unreadReplyBytes) bytes of replies unread") }
            channel.writeAndFlush(ByteBuffer(bytes: reports), promise: nil)
            if pollAfter { busyPoll?.answered() }
        }
        try channel.pipeline.syncOperations.addHandler(
            CTAPHIDChannelHandler(connection: connection, logger: logger) {
                busyPoll?.unwatch(descriptor)
                occupancy?.leave()
            })
        return (channel, connection)
    }
}

extension CTAPHIDServer {
    /// What each event loop of the group keeps for the connections it serves.
    struct PerLoop: Sendable {
        /// Nil when busy polling is off.
        let busyPoll: BusyPoll?
        let occupancy = LoopOccupancy()
        /// Whether the loop runs its connections' quick transactions (`Configuration.quickTransactionsOnLoop`).
        let runsQuickTransactions: Bool

        static func forEachLoop(of group: any EventLoopGroup, busyPoll budget: Duration, quickTransactions: Bool)
            -> [ObjectIdentifier: PerLoop]
        {
            let polls = BusyPoll.forEachLoop(of: group, budget: budget)
            return Dictionary(
                uniqueKeysWithValues: group.makeIterator().map { loop in
                    (
                        ObjectIdentifier(loop),
                        PerLoop(busyPoll: polls[ObjectIdentifier(loop)], runsQuickTransactions: quickTransactions)
                    )
                })
        }
    }
}
