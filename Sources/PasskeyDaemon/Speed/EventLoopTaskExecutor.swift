import NIOCore

/// A task executor that runs its tasks' jobs on one NIO event loop: the connection's.
///
/// The transactions that answer quickly prefer it, so a request read by the event loop is
/// handled, and its reply written, on that same thread: no wake-up of a pool thread to start
/// the transaction, and no wake-up of the event loop to write the answer (jobs enqueued from
/// the loop itself are queued without waking its selector). Default actors the task calls
/// into (the authenticator, the keystore) run their code there too; the connection's actor
/// has the loop as its own executor (`CTAPHIDConnection.unownedExecutor`).
/// Work that may run long (a reset, a bio enrollment; within a registration, RSA key
/// generation) does not prefer it, so the loop stays free to send keepalives (CTAP 2.1
/// §11.2.9.2.1).
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
