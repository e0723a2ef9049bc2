import Foundation
import Glibc

/// SIGTERM and SIGINT, turned into an async wait so shutdown can run ordinary async code.
/// Installed when serving begins, before the socket binds: a signal that arrives during
/// start-up is held, not fatal, and ends the daemon cleanly as soon as it is ready.
///
/// A handler writes the signal's number to a pipe (the self-pipe: `write` is async-signal-
/// safe, and the handler runs on whichever thread the kernel picked) and one thread reads
/// it. Not Dispatch's signal sources: on Linux they re-raise a signal caught on another
/// thread at the thread that registered them and read it through a signalfd, the likely
/// cause of one interop run, under load, whose daemon acted only on its second SIGTERM.
struct TerminationSignal: Sendable {
    private let stream: AsyncStream<Int32>

    static func install() -> TerminationSignal {
        let (stream, continuation) = AsyncStream.makeStream(of: Int32.self)
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else {
            // No descriptor to spare at start-up: the signals keep their default action (exit).
            return TerminationSignal(stream: stream)
        }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        // A full pipe drops a signal rather than blocking the handler; one is enough.
        _ = fcntl(ends[1], F_SETFL, O_NONBLOCK)
        signalPipe = ends[1]
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { number in
            let interrupted = errno
            var byte = UInt8(truncatingIfNeeded: number)
            _ = write(signalPipe, &byte, 1)
            errno = interrupted
        }
        action.sa_flags = SA_RESTART
        sigemptyset(&action.sa_mask)
        for number in [SIGTERM, SIGINT] { sigaction(number, &action, nil) }
        let readEnd = ends[0]
        let reader = Thread {
            var byte: UInt8 = 0
            while true {
                let count = read(readEnd, &byte, 1)
                if count == 1 {
                    continuation.yield(Int32(byte))
                } else if count < 0, errno == EINTR {
                    continue
                } else {
                    break
                }
            }
        }
        reader.name = "passkeyd.signals"
        reader.start()
        return TerminationSignal(stream: stream)
    }

    /// The first signal received since `install()`, waiting for one if none came yet.
    func wait() async -> Int32 {
        for await number in stream { return number }
        return SIGTERM
    }
}

/// The pipe's write end, for the handler: a plain global it reads without allocating,
/// set before the handler is installed.
nonisolated(unsafe) private var signalPipe: Int32 = -1
