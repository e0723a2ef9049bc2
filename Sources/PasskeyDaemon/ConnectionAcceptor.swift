import Logging
import NIOCore
import PasskeydLocal

#if canImport(Glibc)
    import Glibc
#endif

/// How connections reach the server: the seam of the accept-thread speed mechanism.
///
/// The plain path is NIO's own server channel (`ServerChannelAcceptor`). passkeyd runs its own
/// accept thread by default (`Acceptor`, in `Speed/`), which holds each connection's descriptor
/// so that `BusyPoll` can poll it; `PASSKEYD_SPEED_OFF=acceptthread` takes the plain path.
/// Either way a peer of another uid is refused (SO_PEERCRED) before a byte is read from it, and
/// every connection is set up by the same `ConnectionSetUp`.
protocol ConnectionAcceptor: Sendable {
    /// Serves every connection accepted, each until its peer leaves; once `stop()` was called,
    /// closes those still open (cancelling their transactions) and returns.
    func serveConnections() async
    /// Stops accepting and closes the listening socket.
    func stop()
}

/// A connection being served: its NIO channel and the `CTAPHIDConnection` reading it.
struct ServedConnection: Sendable {
    let channel: any Channel
    let connection: CTAPHIDConnection
    let logger: Logger

    /// Until the peer goes away or the task is cancelled (the server stops: the channel is
    /// closed), then ends what the connection had begun.
    func serve() async {
        logger.debug("connected")
        await withTaskCancellationHandler {
            try? await channel.closeFuture.get()
        } onCancel: {
            channel.close(promise: nil)
        }
        await connection.close()
        logger.debug("disconnected")
    }
}

/// What every accepted connection gets, whichever acceptor took it.
struct ConnectionSetUp: Sendable {
    let device: CTAPHIDDevice
    let timing: CTAPHIDServer.Timing
    let loops: [ObjectIdentifier: CTAPHIDServer.PerLoop]
    /// Peers of any other uid are refused.
    let allowedUID: uid_t
    let logger: Logger
    /// How many connections are served at once; the acceptor takes a place before serving one.
    let limit: ConnectionLimit

    /// Bounds the replies written but not yet taken by the peer (`CTAPHIDServer.Limits`).
    static let writeBufferWaterMark = ChannelOptions.Types.WriteBufferWaterMark(
        low: CTAPHIDServer.Limits.unreadReplyBytes / 2, high: CTAPHIDServer.Limits.unreadReplyBytes)

    /// Whether `peer` (SO_PEERCRED; nil when the kernel would not say) may be served: the
    /// allowed uid only. Asked before a byte is read from the connection.
    func admits(_ peer: PeerCredentials?) -> Bool {
        guard let uid = peer?.uid, uid == allowedUID else {
            logger.warning(
                "refused peer of another uid", metadata: ["uid": "\(peer.map { String($0.uid) } ?? "unknown")"])
            return false
        }
        return true
    }

    /// Each of `incoming` opened (`open`, nil when it cannot be served) and served, each in a
    /// task of its own, until `incoming` finishes; those still open are then closed. Each had a
    /// place in `limit`, given back when it ends.
    func serveEach<Incoming: Sendable>(
        of incoming: AsyncStream<Incoming>, _ open: @escaping @Sendable (Incoming) async -> ServedConnection?
    ) async {
        await withDiscardingTaskGroup { [limit] group in
            for await next in incoming {
                group.addTask {
                    await open(next)?.serve()
                    limit.leave()
                }
            }
            group.cancelAll()
        }
    }

    /// The connection of a new channel, on its event loop, before the channel reads anything.
    /// `descriptor`: the socket's, which busy polling watches; nil from NIO's server channel,
    /// which does not expose it, so that connection is never polled.
    func connection(on channel: any Channel, descriptor: Int32?, requester: PeerCredentials?) throws
        -> ServedConnection
    {
        var logger = logger
        let id = device.register()
        logger[metadataKey: "connection"] = "\(id)"
        // Quick transactions run on the connection's event loop (`EventLoopTaskExecutor` says why).
        let executor = EventLoopTaskExecutor(channel.eventLoop)
        let loop = loops[ObjectIdentifier(channel.eventLoop)]
        let busyPoll = descriptor == nil ? nil : loop?.busyPoll
        let occupancy = loop?.occupancy
        if let descriptor { busyPoll?.watch(descriptor) }
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
            quickTransactions: QuickTransactions(onLoop: loop?.runsQuickTransactions ?? true, occupancy: occupancy),
            requester: requester, logger: logger, drop: drop, stream: stream,
            pauseReading: { paused in try? channel.syncOptions?.setOption(.autoRead, value: !paused) }
        ) { reports, pollAfter in
            guard channel.isWritable else {
                return drop("\(CTAPHIDServer.Limits.unreadReplyBytes) bytes of replies unread")
            }
            channel.writeAndFlush(ByteBuffer(bytes: reports), promise: nil)
            if pollAfter { busyPoll?.answered() }
        }
        try channel.pipeline.syncOperations.addHandler(
            CTAPHIDChannelHandler(connection: connection, logger: logger) {
                if let descriptor { busyPoll?.unwatch(descriptor) }
                occupancy?.leave()
            })
        return ServedConnection(channel: channel, connection: connection, logger: logger)
    }
}
