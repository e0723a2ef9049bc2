import Dispatch

/// Runs `operation` to completion from the synchronous fuzz entry point.
///
/// libFuzzer calls `LLVMFuzzerTestOneInput` on its own thread, outside Swift concurrency.
/// The operation runs as a detached task on the global cooperative pool, and that thread
/// blocks on a semaphore. It cannot deadlock: the blocked thread is libFuzzer's, never a
/// pool thread, and nothing the harnesses call needs the main actor. A hang in the code
/// under test is reported by libFuzzer's `-timeout` rather than waited on forever.
public func waitFor<T: Sendable>(_ operation: @escaping @Sendable () async -> T) -> T {
    let done = DispatchSemaphore(value: 0)
    let box = ResultBox<T>()
    Task.detached {
        box.value = await operation()
        done.signal()
    }
    done.wait()
    return box.value!
}

/// Hands the task's result to the waiting thread; the semaphore orders the write before the read.
private final class ResultBox<T>: @unchecked Sendable {
    var value: T?
}
