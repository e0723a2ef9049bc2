import Dispatch
import Foundation

/// SIGTERM and SIGINT, delivered through Dispatch rather than a C handler so
/// shutdown can run ordinary async code. Installed when serving begins, before
/// the socket binds: a signal that arrives during start-up is held, not fatal,
/// and ends the daemon cleanly as soon as it is ready.
struct TerminationSignal: @unchecked Sendable {
    // @unchecked: the Dispatch sources are only resumed here and cancelled in `wait()`.
    private let stream: AsyncStream<Int32>
    private let sources: [any DispatchSourceSignal]

    /// Ignores the default action of both signals and starts listening for them.
    static func install() -> TerminationSignal {
        let (stream, continuation) = AsyncStream.makeStream(of: Int32.self)
        let queue = DispatchQueue(label: "passkeyd.signals")
        let sources = [SIGTERM, SIGINT].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler { continuation.yield(number) }
            source.resume()
            return source
        }
        return TerminationSignal(stream: stream, sources: sources)
    }

    /// The first signal received since `install()`, waiting for one if none came yet.
    func wait() async -> Int32 {
        var received = SIGTERM
        for await number in stream {
            received = number
            break
        }
        sources.forEach { $0.cancel() }
        return received
    }
}
