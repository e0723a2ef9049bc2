import NIOCore

/// A task executor that runs its tasks' jobs on one NIO event loop: the connection's.
///
/// Each exchange with the device prefers it, so the request is written and the reply read
/// on the thread that does the socket's I/O: no wake-up of the event loop to write, and
/// none of a pool thread per batch of reports read. (The daemon's `PasskeyDaemon` module has
/// the same small type; neither module depends on the other.)
final class EventLoopTaskExecutor: TaskExecutor {
    let eventLoop: any EventLoop

    init(_ eventLoop: any EventLoop) {
        self.eventLoop = eventLoop
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        eventLoop.execute { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
