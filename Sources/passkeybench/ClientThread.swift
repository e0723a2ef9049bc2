import Foundation
import Synchronization

/// A thread of its own for one benchmark client, as a task executor: several clients stand
/// for several hosts (processes, each with its own threads), not for several tasks of one
/// host sharing the cooperative pool's threads. A client that waits for its reply on its
/// thread (`PasskeyClient` spins briefly, then blocks in poll(2)) holds only its own.
final class ClientThread: TaskExecutor, Sendable {
    private struct Queue {
        var jobs: [UnownedJob] = []
        var stopped = false
    }

    private let queue = Mutex(Queue())
    private let ready = DispatchSemaphore(value: 0)

    /// The thread holds its executor until `stop()` has let it end: whoever made it may let
    /// go of it first.
    init(name: String) {
        let thread = Thread { self.run() }
        thread.name = name
        thread.start()
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.withLock { $0.jobs.append(job) }
        ready.signal()
    }

    /// Ends the thread once the jobs queued so far have run.
    func stop() {
        queue.withLock { $0.stopped = true }
        ready.signal()
    }

    private func run() {
        while true {
            ready.wait()
            let (jobs, stopped) = queue.withLock { queue in
                defer { queue.jobs = [] }
                return (queue.jobs, queue.stopped)
            }
            for job in jobs { job.runSynchronously(on: asUnownedTaskExecutor()) }
            if stopped { return }
        }
    }
}
