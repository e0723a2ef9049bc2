import Foundation
import Logging
import PasskeydLocal

#if canImport(Glibc)
    import Glibc
#endif

/// The listening socket and its accept loop, on a thread of its own.
///
/// passkeyd accepts connections itself rather than through a NIO server channel so that it
/// holds each connection's descriptor, which `BusyPoll` polls. A peer of another uid is
/// refused (SO_PEERCRED) before a byte is read from it; the others are handed on as
/// descriptors for NIO to wrap.
final class Acceptor: Sendable {
    /// The descriptors of accepted connections from the allowed uid, each the receiver's to
    /// close; finishes once the acceptor stops.
    let connections: AsyncStream<Int32>
    /// `stop()` closes it, which wakes the accept loop (its read end reports a hang-up).
    private let stopDescriptor: Int32

    /// Accepts on `listener` (bound and listening) until `stop` is closed.
    private init(listener: Int32, stop: (read: Int32, write: Int32), allowedUID: uid_t, logger: Logger) {
        let (stream, continuation) = AsyncStream.makeStream(of: Int32.self)
        connections = stream
        stopDescriptor = stop.write
        let thread = Thread {
            Self.accept(
                on: listener, until: stop.read, allowedUID: allowedUID, logger: logger, continuation: continuation)
            close(stop.read)
            close(listener)
            continuation.finish()
        }
        thread.name = "passkeyd.accept"
        thread.start()
    }

    /// Binds `path` (or takes the inherited socket) and starts accepting on it.
    static func start(_ source: ListeningSocket, path: String, allowedUID: uid_t, logger: Logger) throws(DaemonError)
        -> Acceptor
    {
        var stop: [Int32] = [-1, -1]
        guard pipe(&stop) == 0 else { throw .cannotBind(path: path, errno: errno) }
        for end in stop { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        let listener: Int32
        do {
            switch source {
            case .bind: listener = try bind(path)
            case .inherited(let descriptor): listener = descriptor
            }
        } catch {
            stop.forEach { close($0) }
            throw error
        }
        // Non-blocking, so the loop drains every pending connection and never waits in accept.
        guard fcntl(listener, F_SETFL, fcntl(listener, F_GETFL) | O_NONBLOCK) == 0 else {
            let code = errno
            stop.forEach { close($0) }
            if source == .bind { close(listener) }
            throw .cannotBind(path: path, errno: code)
        }
        return Acceptor(listener: listener, stop: (stop[0], stop[1]), allowedUID: allowedUID, logger: logger)
    }

    /// Stops accepting; `connections` finishes once the loop has closed the listening socket.
    func stop() {
        close(stopDescriptor)
    }

    private static func bind(_ path: String) throws(DaemonError) -> Int32 {
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw .cannotBind(path: path, errno: errno) }
        guard let address = UnixSocketAddress(path: path) else {
            close(descriptor)
            throw .socketPathTooLong(path: path)
        }
        // As deep as the kernel allows: a burst of non-blocking connects must not meet EAGAIN.
        guard address.bind(descriptor), listen(descriptor, SOMAXCONN) == 0 else {
            let code = errno
            close(descriptor)
            throw .cannotBind(path: path, errno: code)
        }
        return descriptor
    }

    private static func accept(
        on listener: Int32, until stopped: Int32, allowedUID: uid_t, logger: Logger,
        continuation: AsyncStream<Int32>.Continuation
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
                        // Out of descriptors: the connection waits in the backlog until one is freed.
                        logger.warning("cannot accept a connection", metadata: ["errno": "\(errno)"])
                        usleep(10_000)
                    default: break
                    }
                    break
                }
                _ = fcntl(connection, F_SETFD, FD_CLOEXEC)
                _ = fcntl(connection, F_SETFL, fcntl(connection, F_GETFL) | O_NONBLOCK)
                // Refuse another user's process before reading a byte from it.
                let uid = PeerCredentials(of: connection)?.uid
                guard uid == allowedUID else {
                    logger.warning(
                        "refused peer of another uid", metadata: ["uid": "\(uid.map(String.init) ?? "unknown")"])
                    close(connection)
                    continue
                }
                if case .terminated = continuation.yield(connection) { close(connection) }
            }
        }
    }

}
