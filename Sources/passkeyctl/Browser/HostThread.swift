import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The host's one thread: it reads the browser's messages from standard input and runs the
/// host's tasks (a task executor), so a request read here is parsed, handed to passkeyd and
/// answered on this same thread — no wake-up of a pool thread to start it and none to write
/// the answer. Default actors the tasks call into (the host, its transport pool, the socket
/// transport) run their code here too (SE-0417, task executor preference).
///
/// A sign-in through the browser crosses the browser's own processes four times (page,
/// service worker, native port, and back), so each thread the host wakes is paid on top of
/// them (docs/benchmarks.md, the browser rows). Work that resumes from elsewhere (a
/// Dispatch read source for a reply that waits for the person, a timer) wakes the thread
/// through a pipe; the socket transport's brief blocking wait for a reply (at most 1 ms,
/// `ReportReader`) holds it, as it holds a pool thread otherwise.
final class HostThread: TaskExecutor, Sendable {
    private struct Queue {
        var jobs: [UnownedJob] = []
        var stopped = false
    }

    private let queue = Mutex(Queue())
    /// A pipe's read and write ends: a byte written wakes the thread's poll(2).
    private let wakeup: (read: Int32, write: Int32)

    /// Starts the thread: `frames` gets each frame read from `input`, on the thread, until one
    /// that is not a message (the end, or a broken stream); then it only runs jobs until `stop()`.
    init(input: Int32, frames: @escaping @Sendable (NativeMessaging.Frame) -> Void) {
        var ends: [Int32] = [-1, -1]
        if pipe(&ends) != 0 { fatalError("passkeyctl browser host: no pipe (errno \(errno))") }
        for end in ends {
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
            _ = fcntl(end, F_SETFL, O_NONBLOCK)
        }
        wakeup = (ends[0], ends[1])
        let thread = Thread { [self] in run(input: input, frames: frames) }
        thread.name = "browser-host"
        thread.start()
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.withLock { $0.jobs.append(job) }
        wake()
    }

    /// Ends the thread once the jobs queued so far have run.
    func stop() {
        queue.withLock { $0.stopped = true }
        wake()
    }

    private func wake() {
        var byte: UInt8 = 1
        _ = Glibc.write(wakeup.write, &byte, 1)  // a full pipe already wakes it
    }

    private func run(input: Int32, frames: @Sendable (NativeMessaging.Frame) -> Void) {
        let reader = NativeMessaging.Reader(descriptor: input)
        var reading = true
        while true {
            let (jobs, stopped) = queue.withLock { queue in
                defer { queue.jobs = [] }
                return (queue.jobs, queue.stopped)
            }
            for job in jobs { job.runSynchronously(on: asUnownedTaskExecutor()) }
            if !jobs.isEmpty { continue }  // jobs may have queued jobs: run those before waiting
            if stopped { break }
            var entries = [
                pollfd(fd: wakeup.read, events: Int16(POLLIN), revents: 0),
                pollfd(fd: reading ? input : -1, events: Int16(POLLIN), revents: 0)
            ]
            guard poll(&entries, 2, -1) >= 0 || errno == EINTR else { break }
            if entries[0].revents != 0 {
                var drained = [UInt8](repeating: 0, count: 64)
                while Glibc.read(wakeup.read, &drained, drained.count) == drained.count {}
            }
            if reading, entries[1].revents != 0 {
                // Readable (or closed): the frame's bytes follow its length at once, so this read does not stall.
                let frame = reader.next()
                frames(frame)
                if case .message = frame {} else { reading = false }
            }
        }
        close(wakeup.read)
        close(wakeup.write)
    }
}
