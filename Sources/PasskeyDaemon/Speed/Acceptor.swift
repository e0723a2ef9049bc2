import Foundation
import Logging
import NIOCore
import NIOPosix
import PasskeydLocal

#if canImport(Glibc)
    import Glibc
#endif

/// passkeyd's own accept loop, on a thread of its own: the speed mechanism behind
/// `ConnectionAcceptor` (`PASSKEYD_SPEED_OFF=acceptthread` takes NIO's server channel instead).
///
/// It exists for busy polling: `BusyPoll` polls each connection's descriptor, which NIO's server
/// channel does not expose. So this thread accepts, refuses a peer of another uid (SO_PEERCRED)
/// before a byte is read from it, and hands the others to NIO as descriptors to wrap
/// (`ClientBootstrap.withConnectedSocket`).
final class Acceptor: ConnectionAcceptor {
    /// The descriptors of accepted connections from the allowed uid, with their peer, each the
    /// receiver's to close; finishes once the acceptor stops.
    private let connections: AsyncStream<(descriptor: Int32, peer: PeerCredentials?)>
    /// `stop()` closes it, which wakes the accept loop (its read end reports a hang-up).
    private let stopDescriptor: Int32
    private let setUp: ConnectionSetUp

    /// Accepts on `listener` (bound and listening) until `stop` is closed.
    private init(listener: Int32, stop: (read: Int32, write: Int32), setUp: ConnectionSetUp) {
        let (stream, continuation) = AsyncStream.makeStream(of: (descriptor: Int32, peer: PeerCredentials?).self)
        connections = stream
        stopDescriptor = stop.write
        self.setUp = setUp
        let thread = Thread {
            Self.accept(on: listener, until: stop.read, setUp: setUp, continuation: continuation)
            close(stop.read)
            close(listener)
            continuation.finish()
        }
        thread.name = "passkeyd.accept"
        thread.start()
    }

    /// Starts accepting on `listener` (bound and listening; closed when this stops, or now if
    /// it cannot start).
    static func start(listener: Int32, path: String, setUp: ConnectionSetUp) throws(DaemonError) -> Acceptor {
        var stop: [Int32] = [-1, -1]
        guard pipe(&stop) == 0 else {
            let code = errno
            close(listener)
            throw .cannotBind(path: path, errno: code)
        }
        for end in stop { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        // Non-blocking, so the loop drains every pending connection and never waits in accept.
        guard fcntl(listener, F_SETFL, fcntl(listener, F_GETFL) | O_NONBLOCK) == 0 else {
            let code = errno
            (stop + [listener]).forEach { close($0) }
            throw .cannotBind(path: path, errno: code)
        }
        return Acceptor(listener: listener, stop: (stop[0], stop[1]), setUp: setUp)
    }

    func serveConnections() async {
        await setUp.serveEach(of: connections) { [setUp] accepted in
            do {
                return try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                    .channelOption(.writeBufferWaterMark, value: ConnectionSetUp.writeBufferWaterMark)
                    .withConnectedSocket(accepted.descriptor) { channel in
                        channel.eventLoop.makeCompletedFuture {
                            try setUp.connection(on: channel, descriptor: accepted.descriptor, requester: accepted.peer)
                        }
                    }
            } catch {
                // NIO owns the descriptor once it made a channel of it, and closed it with the channel.
                setUp.logger.warning("cannot serve a connection", metadata: ["error": "\(error)"])
                return nil
            }
        }
    }

    /// Stops accepting; `serveConnections` ends once the loop has closed the listening socket.
    func stop() {
        close(stopDescriptor)
    }

    private static func accept(
        on listener: Int32, until stopped: Int32, setUp: ConnectionSetUp,
        continuation: AsyncStream<(descriptor: Int32, peer: PeerCredentials?)>.Continuation
    ) {
        var watched = [
            pollfd(fd: listener, events: Int16(POLLIN), revents: 0),
            pollfd(fd: stopped, events: Int16(POLLIN), revents: 0)
        ]
        while true {
            guard poll(&watched, 2, -1) >= 0 || errno == EINTR else { return }
            if watched[1].revents != 0 || watched[0].revents & Int16(POLLNVAL | POLLHUP | POLLERR) != 0 { return }
            while true {
                // (accept4 is not in Swift's Glibc, which lacks _GNU_SOURCE; passkeyd execs nothing
                // while serving, so setting the flags afterwards leaks nothing.)
                let connection = Glibc.accept(listener, nil, nil)
                if connection < 0 {
                    switch errno {
                    case EINTR, ECONNABORTED: continue
                    case EMFILE, ENFILE, ENOBUFS, ENOMEM:
                        // Out of descriptors (another part of the process, or the system, took them):
                        // the connection waits in the backlog until one is freed; logged once a second.
                        setUp.limit.acceptFailed(errno: errno)
                        usleep(10_000)
                    default: break
                    }
                    break
                }
                // Past the cap, closed at once and unread: no client can spend the descriptors.
                guard setUp.limit.admit() else {
                    close(connection)
                    continue
                }
                _ = fcntl(connection, F_SETFD, FD_CLOEXEC)
                _ = fcntl(connection, F_SETFL, fcntl(connection, F_GETFL) | O_NONBLOCK)
                // Refuse another user's process before reading a byte from it.
                let peer = PeerCredentials(of: connection)
                guard setUp.admits(peer) else {
                    close(connection)
                    setUp.limit.leave()
                    continue
                }
                if case .terminated = continuation.yield((connection, peer)) {
                    close(connection)
                    setUp.limit.leave()
                }
            }
        }
    }
}
