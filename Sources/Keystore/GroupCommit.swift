import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Group commit: SQLite commits into the WAL without flushing it (`synchronous = NORMAL`),
/// and one `fdatasync` of the WAL then makes every transaction committed before it
/// durable at once. Whoever needs its commits durable either leads the next flush (none
/// runs) or waits for the flush that starts after it; commits made while a flush runs share
/// the one after it.
///
/// Order is kept by the WAL itself: frames are appended in commit order and each frame's
/// checksum chains over all before it, so recovery after a crash keeps a prefix of the
/// transactions and never a later one without an earlier one.
///
/// The flush runs on the leader's own thread, outside the `Keystore` actor: the thread that
/// would otherwise sleep until the flush ends does it, so a flush costs no thread wake-up to
/// start and none to end for the leader (two to three on this kind of machine, ~20 µs each,
/// when a queue of its own flushed; docs/benchmarks.md). When it ends, the waits it covers are
/// answered and the first wait it does not cover leads the next flush. Flushes start only for
/// a waiter, so after a failed one a broken disk is not retried in a loop.
struct GroupCommit: Sendable {
    /// What a caller that needs every commit so far durable does next.
    enum Turn: Sendable {
        /// Its commits are durable, or the flush covering them failed.
        case finished(Result<Void, KeystoreError>)
        /// It runs the next flush, and reports its end with `flushEnded`.
        case lead
    }

    /// Write transactions committed so far.
    private(set) var committed: UInt64 = 0
    /// Of those, how many a finished flush covers.
    private(set) var flushed: UInt64 = 0
    /// The number of commits the running flush covers; nil when none runs.
    private(set) var flushing: UInt64?
    private var waiters: [(upTo: UInt64, continuation: CheckedContinuation<Turn, Never>)] = []

    mutating func recordCommit() { committed += 1 }

    var isDurable: Bool { flushed >= committed }
    /// Callers waiting for a flush.
    var waitingCount: Int { waiters.count }

    /// The caller's turn at once, or nil: it must `wait`, a flush runs already.
    mutating func turn() -> Turn? {
        if isDurable { return .finished(.success(())) }
        guard flushing == nil else { return nil }
        flushing = committed
        return .lead
    }

    /// Queues a wait for every commit so far; answered when a flush covering them ends,
    /// or when it is this wait's turn to lead one.
    mutating func wait(_ continuation: CheckedContinuation<Turn, Never>) {
        waiters.append((committed, continuation))
    }

    /// The running flush ended: the waits it covers are answered with its outcome, and the
    /// first one left leads the next flush.
    mutating func flushEnded(_ outcome: Result<Void, KeystoreError>) {
        let covered = flushing ?? 0
        flushing = nil
        if case .success = outcome { flushed = max(flushed, covered) }
        let (answered, waiting) = (waiters.filter { $0.upTo <= covered }, waiters.filter { $0.upTo > covered })
        waiters = waiting
        for waiter in answered { waiter.continuation.resume(returning: .finished(outcome)) }
        guard !waiters.isEmpty else { return }
        let leader = waiters.removeFirst()
        flushing = committed
        leader.continuation.resume(returning: .lead)
    }
}

/// The WAL file's descriptor, opened once the keystore is: `fdatasync` reports a write-back
/// error only to descriptors open when it happened, so it is opened before any commit.
final class WALFile: Sendable {
    let path: String
    private let descriptor: Int32

    init(databasePath: String) throws(KeystoreError) {
        path = databasePath + "-wal"
        descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw .io(path: path, operation: .read, errno: errno) }
    }

    deinit { close(descriptor) }

    /// `fdatasync`, on the calling thread.
    func flush() -> Result<Void, KeystoreError> {
        fdatasync(descriptor) == 0 ? .success(()) : .failure(.io(path: path, operation: .sync, errno: errno))
    }
}
