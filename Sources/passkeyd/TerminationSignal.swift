import Dispatch
import Foundation

/// Waits for SIGTERM or SIGINT, delivered through Dispatch rather than a C
/// handler so shutdown can run ordinary async code.
enum TerminationSignal {
    static func wait() async -> Int32 {
        let (stream, continuation) = AsyncStream.makeStream(of: Int32.self)
        let queue = DispatchQueue(label: "passkeyd.signals")
        let sources = [SIGTERM, SIGINT].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler { continuation.yield(number) }
            source.resume()
            return source
        }
        var received = SIGTERM
        for await number in stream {
            received = number
            break
        }
        sources.forEach { $0.cancel() }
        return received
    }
}
