import NIOCore
import NIOPosix
import PasskeydLocal

#if canImport(Glibc)
    import Glibc
#endif

/// The plain path of `ConnectionAcceptor`: NIO's own server channel on the listening socket
/// (`ServerBootstrap`), as `PASSKEYD_SPEED_OFF=acceptthread` asks. Each child channel's peer is
/// checked (SO_PEERCRED, through NIO's socket options) in its initializer, which runs before
/// the channel is registered with its loop, so another user's process is closed before a byte
/// is read from it. NIO does not expose a connection's descriptor, so these connections are
/// never busy-polled.
final class ServerChannelAcceptor: ConnectionAcceptor {
    private let serverChannel: any Channel
    private let accepted: AsyncStream<ServedConnection>
    private let setUp: ConnectionSetUp

    private init(serverChannel: any Channel, accepted: AsyncStream<ServedConnection>, setUp: ConnectionSetUp) {
        self.serverChannel = serverChannel
        self.accepted = accepted
        self.setUp = setUp
    }

    /// Accepts on `listener` (bound and listening; NIO's from now on, closed when this stops).
    static func start(listener: Int32, path: String, setUp: ConnectionSetUp) async throws(DaemonError)
        -> ServerChannelAcceptor
    {
        let (accepted, continuation) = AsyncStream.makeStream(of: ServedConnection.self)
        let serverChannel: any Channel
        do {
            serverChannel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .childChannelOption(.writeBufferWaterMark, value: ConnectionSetUp.writeBufferWaterMark)
                .childChannelInitializer { child in
                    // Past the cap, closed at once and unread (a failed initializer closes the child).
                    guard setUp.limit.admit() else { return child.eventLoop.makeFailedFuture(NotServed()) }
                    return peer(of: child).flatMapThrowing { peer in
                        do {
                            guard setUp.admits(peer) else { throw NotServed() }
                            let served = try setUp.connection(on: child, descriptor: nil, requester: peer)
                            if case .terminated = continuation.yield(served) { throw NotServed() }
                        } catch {
                            // Not served: its place is given back here, not by `serveEach`.
                            setUp.limit.leave()
                            throw error
                        }
                    }
                }
                .withBoundSocket(listener).get()
        } catch {
            continuation.finish()
            throw .cannotBind(path: path, errno: (error as? IOError)?.errnoCode ?? EIO)
        }
        serverChannel.closeFuture.whenComplete { _ in continuation.finish() }
        return ServerChannelAcceptor(serverChannel: serverChannel, accepted: accepted, setUp: setUp)
    }

    /// Fails a child's initializer: NIO then closes it.
    private struct NotServed: Error {}

    func serveConnections() async {
        await setUp.serveEach(of: accepted) { $0 }
    }

    func stop() {
        serverChannel.close(promise: nil)
    }

    /// The peer's credentials (SO_PEERCRED), read on the child's loop; nil if the kernel will not say.
    private static func peer(of channel: any Channel) -> EventLoopFuture<PeerCredentials?> {
        guard let options = channel as? any SocketOptionProvider else {
            return channel.eventLoop.makeSucceededFuture(nil)
        }
        let credentials: EventLoopFuture<PeerCredentials> = options.unsafeGetSocketOption(
            level: NIOBSDSocket.OptionLevel(rawValue: SOL_SOCKET), name: NIOBSDSocket.Option(rawValue: SO_PEERCRED))
        return credentials.map { Optional($0) }.recover { _ in nil }
    }
}
