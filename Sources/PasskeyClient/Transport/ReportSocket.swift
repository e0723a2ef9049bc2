import Dispatch
import Glibc
import PasskeydLocal
import Synchronization

/// The connected Unix stream socket a `UnixSocketTransport` speaks CTAPHID reports on,
/// used straight from the calling thread: no event loop between the caller and the
/// kernel (docs/benchmarks.md, "PasskeyClient's socket path").
///
/// Sendable without a lock: the descriptor never changes, and it is closed only when the
/// last reference goes (`deinit`), so no thread ever reads, writes or polls a descriptor
/// number the process has since reused. `shutdown()` is what ends the connection early: it
/// wakes every waiter (the socket reads as ended) and makes writes fail.
final class ReportSocket: Sendable {
    private let descriptor: Int32

    private init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    deinit {
        Glibc.close(descriptor)
    }

    /// Connects to the socket at `path`. `sendTimeout` bounds a connect that finds the
    /// daemon's backlog full and every later blocking send (SO_SNDTIMEO covers both).
    static func connect(to path: String, sendTimeout: Duration) throws(TransportError) -> ReportSocket {
        guard let address = UnixSocketAddress(path: path) else { throw .unreachable(path) }
        let descriptor = Glibc.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw .unreachable(path) }
        let socket = ReportSocket(descriptor: descriptor)
        let (seconds, attoseconds) = sendTimeout.components
        var timeout = timeval(tv_sec: Int(max(seconds, 0)), tv_usec: Int(max(attoseconds, 0) / 1_000_000_000_000))
        if timeout.tv_sec == 0 && timeout.tv_usec == 0 { timeout.tv_usec = 1 }  // zero would mean "no limit"
        _ = setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        guard address.connect(descriptor) else { throw .unreachable(path) }
        return socket
    }

    /// The uid of the process serving the socket (SO_PEERCRED, taken by the kernel at connect), if it says.
    var peerUID: uid_t? { PeerCredentials(of: descriptor)?.uid }

    /// Sends all of `bytes`, blocking while the socket's buffer is full (at most the send timeout).
    func send(_ bytes: [UInt8]) throws(TransportError) {
        var sent = 0
        while sent < bytes.count {
            let result = bytes.withUnsafeBytes {
                Glibc.send(descriptor, $0.baseAddress! + sent, $0.count - sent, Int32(MSG_NOSIGNAL))
            }
            if result >= 0 {
                sent += result
            } else if errno == EINTR {
                continue
            } else if errno == EAGAIN || errno == EWOULDBLOCK {
                throw .timeout
            } else {
                throw .disconnected
            }
        }
    }

    /// Sends `bytes` only if they fit in the socket's buffer now, never blocking: for
    /// CTAPHID_CANCEL, written from whichever thread cancels the waiting task.
    func sendWithoutWaiting(_ bytes: [UInt8]) {
        _ = bytes.withUnsafeBytes {
            Glibc.send(descriptor, $0.baseAddress!, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT))
        }
    }

    /// What a `receive` found.
    enum Received {
        case bytes(Int)
        /// Nothing has arrived yet.
        case nothing
        /// The daemon closed the connection, or it broke.
        case ended
    }

    /// Takes what has arrived, never blocking.
    func receive(into buffer: UnsafeMutableRawBufferPointer) -> Received {
        while true {
            let result = Glibc.recv(descriptor, buffer.baseAddress!, buffer.count, Int32(MSG_DONTWAIT))
            if result > 0 { return .bytes(result) }
            if result == 0 { return .ended }
            switch errno {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: return .nothing
            default: return .ended
            }
        }
    }

    /// Blocks this thread until something arrives (or the socket ends) or `milliseconds` pass.
    /// Only for short waits: the thread may be one of the few of Swift's cooperative pool.
    func waitOnThisThread(milliseconds: Int32) {
        var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        _ = poll(&entry, 1, milliseconds)
    }

    /// Whether the daemon has hung up (or the connection broke) while we were not reading:
    /// a connection that cannot carry the next request.
    var hasEnded: Bool {
        // POLLRDHUP (0x2000): the peer closed its end, even with bytes still unread.
        var entry = pollfd(fd: descriptor, events: Int16(POLLIN) | 0x2000, revents: 0)
        guard poll(&entry, 1, 0) >= 0 else { return true }
        return entry.revents & (Int16(POLLHUP) | Int16(POLLERR) | Int16(POLLNVAL) | 0x2000) != 0
    }

    /// Suspends (holding no thread) until something arrives or the socket ends, true, or
    /// `timeout` passes, false; also false at once when the task is cancelled and
    /// `wakingOnCancel`. A Dispatch read source watches the descriptor meanwhile.
    func readable(within timeout: Duration, wakingOnCancel: Bool) async -> Bool {
        let wake = Wake()
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let source = DispatchSource.makeReadSource(fileDescriptor: descriptor, queue: Self.waiting)
                source.setEventHandler { wake.resume(true) }
                // The descriptor stays open until Dispatch has let go of it.
                source.setCancelHandler { withExtendedLifetime(self) {} }
                wake.set(continuation, source: source)
                source.resume()
                let (seconds, attoseconds) = timeout.components
                let nanoseconds = Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000)
                Self.waiting.asyncAfter(deadline: .now() + .nanoseconds(nanoseconds)) { wake.resume(false) }
            }
        } onCancel: {
            if wakingOnCancel { wake.resume(false) }
        }
    }

    /// Ends the connection now: waiters wake, later reads find it ended, writes fail.
    /// The descriptor itself closes with the last reference.
    func shutdown() {
        _ = Glibc.shutdown(descriptor, Int32(SHUT_RDWR))
    }

    private static let waiting = DispatchQueue(label: "PasskeyClient.ReportSocket.waiting")

    /// Resumes a `readable` wait exactly once, whichever comes first: the read source, the
    /// timer or cancellation, on Dispatch's thread or the cancelling one; then cancels the
    /// source. A Mutex because these race on different threads and the first must win
    /// without a suspension.
    private final class Wake: Sendable {
        private struct State {
            var continuation: CheckedContinuation<Bool, Never>?
            var source: Source?
            var result: Bool?
        }
        private let state = Mutex(State())

        /// A Dispatch source is safe to cancel from any thread (libdispatch's contract); the
        /// Swift overlay does not mark it Sendable.
        struct Source: @unchecked Sendable {
            let source: any DispatchSourceRead
        }

        func set(_ continuation: CheckedContinuation<Bool, Never>, source: any DispatchSourceRead) {
            let early = state.withLock { state -> Bool? in
                if state.result == nil {
                    state.continuation = continuation
                    state.source = Source(source: source)
                }
                return state.result
            }
            if let early {
                source.cancel()
                continuation.resume(returning: early)
            }
        }

        func resume(_ result: Bool) {
            let waiting = state.withLock { state -> (CheckedContinuation<Bool, Never>, Source)? in
                guard state.result == nil else { return nil }
                state.result = result
                defer {
                    state.continuation = nil
                    state.source = nil
                }
                return state.continuation.map { ($0, state.source!) }
            }
            guard let (continuation, source) = waiting else { return }
            source.source.cancel()
            continuation.resume(returning: result)
        }
    }
}
