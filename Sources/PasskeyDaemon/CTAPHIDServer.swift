import Authenticator
import CTAP
import CTAPHID
import Foundation
import Logging
import NIOCore
import NIOPosix

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

        public init(messageTimeout: Duration = .milliseconds(500), keepaliveInterval: Duration = .milliseconds(75)) {
            self.messageTimeout = messageTimeout
            self.keepaliveInterval = keepaliveInterval
        }
    }

    public struct Configuration: Sendable {
        public var socketPath: String
        public var timing: Timing
        /// Peers of any other uid are refused (SO_PEERCRED); our own by default.
        public var allowedPeerUID: uid_t
        /// Bound here, or inherited from a service manager.
        public var listener: ListeningSocket

        public init(socketPath: String, timing: Timing = .init(), allowedPeerUID: uid_t = getuid(), listener: ListeningSocket = .bind) {
            self.socketPath = socketPath
            self.timing = timing
            self.allowedPeerUID = allowedPeerUID
            self.listener = listener
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

    private typealias Connection = NIOAsyncChannel<ByteBuffer, ByteBuffer>

    public let socketPath: String
    private let serverChannel: NIOAsyncChannel<Connection?, Never>
    private let lockDescriptor: Int32
    private let listener: ListeningSocket
    private let acceptTask: Task<Void, Never>
    private let logger: Logger

    private init(
        socketPath: String, serverChannel: NIOAsyncChannel<Connection?, Never>, lockDescriptor: Int32,
        listener: ListeningSocket, acceptTask: Task<Void, Never>, logger: Logger
    ) {
        self.socketPath = socketPath
        self.serverChannel = serverChannel
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
        let serverChannel: NIOAsyncChannel<Connection?, Never>
        do {
            if configuration.listener == .bind { try file.clearStale() }
            serverChannel = try await bind(
                configuration.listener, path: path, allowedUID: configuration.allowedPeerUID, logger: logger)
        } catch let error as DaemonError {
            close(lock)
            throw error
        } catch {
            close(lock)
            throw .cannotBind(path: path, errno: (error as? IOError)?.errnoCode ?? EIO)
        }
        chmod(path, 0o600)

        let device = CTAPHIDDevice(handler: handler, broker: broker, controls: controls, info: DaemonInfo(socketPath: path))
        let timing = configuration.timing
        let acceptTask = Task {
            await withDiscardingTaskGroup { group in
                try? await serverChannel.executeThenClose { inbound in
                    for try await connection in inbound {
                        guard let connection else { continue }
                        group.addTask { await serve(connection, device: device, timing: timing, logger: logger) }
                    }
                }
                group.cancelAll()
            }
        }
        logger.info("listening", metadata: ["socket": "\(path)"])
        return CTAPHIDServer(
            socketPath: path, serverChannel: serverChannel, lockDescriptor: lock, listener: configuration.listener,
            acceptTask: acceptTask, logger: logger)
    }

    /// Stops accepting, closes every connection (cancelling its transaction),
    /// removes the socket file (unless it was inherited) and releases the lock.
    public func stop() async {
        // Closing the listener ends the accept loop only after it has handed on every
        // connection already accepted, so each is served and closed (cancelling the loop
        // would drop those unserved, and NIO traps on a writer nobody finished).
        try? await serverChannel.channel.close()
        await acceptTask.value
        if listener == .bind { unlink(socketPath) }
        close(lockDescriptor)
        logger.info("stopped", metadata: ["socket": "\(socketPath)"])
    }

    private static func bind(
        _ listener: ListeningSocket, path: String, allowedUID: uid_t, logger: Logger
    ) async throws -> NIOAsyncChannel<Connection?, Never> {
        let bootstrap = ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            // As deep as the kernel allows: a burst of non-blocking connects must not meet EAGAIN.
            .serverChannelOption(.backlog, value: SOMAXCONN)
            .childChannelOption(.writeBufferWaterMark, value: .init(low: Limits.unreadReplyBytes / 2, high: Limits.unreadReplyBytes))
        let admit: @Sendable (Channel) -> EventLoopFuture<Connection?> = { channel in
            peerUID(of: channel).flatMapThrowing { uid -> Connection? in
                // Refuse another user's process before reading a byte from it.
                guard uid == allowedUID else {
                    logger.warning("refused peer of another uid", metadata: ["uid": "\(uid.map(String.init) ?? "unknown")"])
                    channel.close(promise: nil)
                    return nil
                }
                // Deinit-based teardown on purpose: a connection accepted while the
                // listener closes may never reach the accept loop, and NIO traps on an
                // unfinished writer otherwise (swift-nio #2637, #3481). Served connections
                // still end through executeThenClose.
                return try Connection(synchronouslyWrapping: channel)
            }
        }
        switch listener {
        case .bind: return try await bootstrap.bind(unixDomainSocketPath: path, childChannelInitializer: admit)
        case .inherited(let descriptor): return try await bootstrap.bind(descriptor, childChannelInitializer: admit)
        }
    }

    /// The peer's uid from SO_PEERCRED; nil if the kernel will not say.
    private static func peerUID(of channel: Channel) -> EventLoopFuture<uid_t?> {
        guard let provider = channel as? SocketOptionProvider else { return channel.eventLoop.makeSucceededFuture(nil) }
        let credentials: EventLoopFuture<PeerCredentials> = provider.unsafeGetSocketOption(
            level: SocketOptionLevel(SOL_SOCKET), name: SocketOptionName(SO_PEERCRED))
        return credentials.map { credentials -> uid_t? in credentials.uid }.recover { _ -> uid_t? in nil }
    }

    private static func serve(_ channel: Connection, device: CTAPHIDDevice, timing: Timing, logger: Logger) async {
        let id = await device.register()
        var logger = logger
        logger[metadataKey: "connection"] = "\(id)"
        // The connection is served on its event loop's thread (`EventLoopTaskExecutor` says why).
        let executor = EventLoopTaskExecutor(channel.channel.eventLoop)
        await withTaskExecutorPreference(executor) {
            await serve(channel, id: id, device: device, timing: timing, executor: executor, logger: logger)
        }
    }

    private static func serve(_ channel: Connection, id: CTAPHIDDevice.ConnectionID, device: CTAPHIDDevice, timing: Timing,
                              executor: EventLoopTaskExecutor, logger: Logger) async {
        try? await channel.executeThenClose { inbound, outbound in
            let drop: @Sendable (String) -> Void = { [logger] reason in
                logger.warning("dropping connection", metadata: ["reason": "\(reason)"])
                channel.channel.close(promise: nil)
            }
            // A watch stream writes with the socket's backpressure: its events wait in the
            // watcher's own bounded buffer, which drops and counts (TestControls).
            let stream: CTAPHIDConnection.Stream = { reports in try? await outbound.write(ByteBuffer(bytes: reports)) }
            // Replies go straight to the channel, in the order the connection's actor sends them
            // (no writer task to wake per reply). Bounded: a peer that writes and never reads is
            // dropped once its unread replies pass the channel's high watermark, never anyone else's memory.
            let socket = channel.channel
            let connection = CTAPHIDConnection(
                id: id, device: device, timing: timing, executor: executor, logger: logger, drop: drop, stream: stream
            ) { reports in
                guard socket.isWritable else { return drop("\(Limits.unreadReplyBytes) bytes of replies unread") }
                socket.writeAndFlush(ByteBuffer(bytes: reports), promise: nil)
            }
            logger.debug("connected")
            do {
                for try await buffer in inbound {
                    await connection.receive(Array(buffer.readableBytesView))
                }
            } catch {
                logger.debug("connection error", metadata: ["error": "\(error)"])
            }
            await connection.close()
            logger.debug("disconnected")
        }
    }
}
