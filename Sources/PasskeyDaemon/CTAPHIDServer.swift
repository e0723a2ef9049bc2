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
        /// Whether connections are accepted on passkeyd's own thread (`Acceptor`), or through
        /// NIO's server channel, the plain path (`ServerChannelAcceptor`), which never busy-polls:
        /// a bench and diagnosis switch (`PASSKEYD_SPEED_OFF=acceptthread`).
        public var acceptThread: Bool
        /// The most connections served at once; nil derives it from the descriptor limit
        /// (`ConnectionLimit`), which `start` raises to its hard value.
        public var connectionLimit: Int?

        public init(
            socketPath: String, timing: Timing = .init(), allowedPeerUID: uid_t = getuid(),
            listener: ListeningSocket = .bind,
            busyPoll: Duration = defaultBusyPoll, quickTransactionsOnLoop: Bool = true, acceptThread: Bool = true,
            connectionLimit: Int? = nil
        ) {
            self.connectionLimit = connectionLimit
            self.socketPath = socketPath
            self.timing = timing
            self.allowedPeerUID = allowedPeerUID
            self.listener = listener
            self.busyPoll = busyPoll
            self.quickTransactionsOnLoop = quickTransactionsOnLoop
            self.acceptThread = acceptThread
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
    private let acceptor: any ConnectionAcceptor
    private let lockDescriptor: Int32
    private let listener: ListeningSocket
    private let acceptTask: Task<Void, Never>
    private let logger: Logger
    /// The one device every connection shares.
    let device: CTAPHIDDevice

    private init(
        socketPath: String, device: CTAPHIDDevice, acceptor: any ConnectionAcceptor, lockDescriptor: Int32,
        listener: ListeningSocket, logger: Logger
    ) {
        self.socketPath = socketPath
        self.device = device
        self.acceptor = acceptor
        self.lockDescriptor = lockDescriptor
        self.listener = listener
        acceptTask = Task { await acceptor.serveConnections() }
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
        let device = CTAPHIDDevice(
            handler: handler, broker: broker, controls: controls, info: DaemonInfo(socketPath: path))
        // Busy polling watches descriptors, which only the accept thread holds.
        if !configuration.acceptThread, configuration.busyPoll > .zero {
            logger.notice("busy polling is off: it needs the accept thread, which PASSKEYD_SPEED_OFF turned off")
        }
        let setUp = ConnectionSetUp(
            device: device, timing: configuration.timing,
            loops: PerLoop.forEachLoop(
                of: MultiThreadedEventLoopGroup.singleton,
                busyPoll: configuration.acceptThread ? configuration.busyPoll : .zero,
                quickTransactions: configuration.quickTransactionsOnLoop),
            allowedUID: configuration.allowedPeerUID, logger: logger,
            limit: ConnectionLimit.forThisProcess(configured: configuration.connectionLimit, logger: logger))
        let acceptor: any ConnectionAcceptor
        do {
            if configuration.listener == .bind { try file.clearStale() }
            // The acceptor owns the listening socket from here, also when it fails to start.
            let listening = try configuration.listener.open(path: path)
            if configuration.acceptThread {
                acceptor = try Acceptor.start(listener: listening, path: path, setUp: setUp)
            } else {
                acceptor = try await ServerChannelAcceptor.start(listener: listening, path: path, setUp: setUp)
            }
        } catch {
            close(lock)
            throw error
        }
        chmod(path, 0o600)
        logger.info("listening", metadata: ["socket": "\(path)"])
        return CTAPHIDServer(
            socketPath: path, device: device, acceptor: acceptor, lockDescriptor: lock,
            listener: configuration.listener, logger: logger)
    }

    /// Stops accepting, closes every connection (cancelling its transaction),
    /// removes the socket file (unless it was inherited) and releases the lock.
    public func stop() async {
        // Accepting ends once the listener is closed; the connections are then cancelled.
        acceptor.stop()
        await acceptTask.value
        if listener == .bind { unlink(socketPath) }
        close(lockDescriptor)
        logger.info("stopped", metadata: ["socket": "\(socketPath)"])
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
