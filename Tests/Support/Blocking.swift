import Foundation

/// Work that blocks a thread (waitpid, poll on a pipe) runs on a thread of its own: Swift
/// concurrency runs every test on as many threads as there are cores (two here), and one
/// test waiting for a child process there would stall every other test's timers and sockets.
enum Blocking {
    static func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try body() }) }.start()
        }
    }
}
