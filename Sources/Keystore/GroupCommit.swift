import Dispatch
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Group commit: SQLite commits into the WAL without flushing it (`synchronous = NORMAL`),
/// and one `fdatasync` of the WAL then makes every transaction committed before it
/// durable at once. Whoever needs its commits durable waits for the next flush to start
/// after them; commits made while a flush runs share the one after it.
///
/// Order is kept by the WAL itself: frames are appended in commit order and each frame's
/// checksum chains over all before it, so recovery after a crash keeps a prefix of the
/// transactions and never a later one without an earlier one.
///
/// A flush starts as soon as a commit finds none running (`commitRecorded`), before anyone
/// waits: the command that committed goes on computing its answer (the public key, the
/// attestation signature, the encoding) while the disk flushes, instead of starting the flush
/// only once its answer is ready. A flush that ends with commits after it starts the next one
/// at once, for the same reason. After a failed flush, only a waiter starts the next one, so a
/// broken disk is not retried in a loop.
///
/// The state lives in the `Keystore` actor; the flush runs on a queue of its own, so a
/// slow disk holds neither the actor, SQLite's writer, nor a cooperative thread.
struct GroupCommit: Sendable {
    /// Write transactions committed so far.
    private(set) var committed: UInt64 = 0
    /// Of those, how many a finished flush covers.
    private(set) var flushed: UInt64 = 0
    /// The number of commits the running flush covers; nil when none runs.
    private(set) var flushing: UInt64?
    private var waiters: [(upTo: UInt64, continuation: CheckedContinuation<Void, any Error>)] = []

    /// A write transaction committed; true when the caller must start a flush for it now
    /// (false: one runs already, and its end starts the next).
    mutating func recordCommit() -> Bool {
        committed += 1
        guard flushing == nil else { return false }
        flushing = committed
        return true
    }

    var isDurable: Bool { flushed >= committed }
    /// Callers waiting for a flush.
    var waitingCount: Int { waiters.count }

    /// Queues a wait for every commit so far; true when the caller must start a flush
    /// (false: one runs already, and its end starts the next).
    mutating func wait(_ continuation: CheckedContinuation<Void, any Error>) -> Bool {
        waiters.append((committed, continuation))
        return startFlush()
    }

    private mutating func startFlush() -> Bool {
        guard flushing == nil, !waiters.isEmpty else { return false }
        flushing = committed
        return true
    }

    /// A flush ended: the waits it covers are answered; true when a next one is to start
    /// (others wait, or, after a successful flush, commits came after it).
    mutating func flushEnded(_ outcome: Result<Void, KeystoreError>) -> Bool {
        let covered = flushing ?? 0
        flushing = nil
        if case .success = outcome { flushed = max(flushed, covered) }
        let (answered, waiting) = (waiters.filter { $0.upTo <= covered }, waiters.filter { $0.upTo > covered })
        waiters = waiting
        for waiter in answered { waiter.continuation.resume(with: outcome.mapError { $0 as any Error }) }
        if case .success = outcome, committed > flushed {
            flushing = committed
            return true
        }
        return startFlush()
    }
}

/// The WAL file's descriptor, opened once the keystore is: `fdatasync` reports a write-back
/// error only to descriptors open when it happened, so it is opened before any commit.
final class WALFile: Sendable {
    let path: String
    private let descriptor: Int32
    private static let queue = DispatchQueue(label: "passkeyd.keystore.flush")

    init(databasePath: String) throws(KeystoreError) {
        path = databasePath + "-wal"
        descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw .io(path: path, operation: .read, errno: errno) }
    }

    deinit { close(descriptor) }

    /// `fdatasync` on the flush queue.
    func flush() async -> Result<Void, KeystoreError> {
        await withCheckedContinuation { continuation in
            Self.queue.async {
                let outcome: Result<Void, KeystoreError> = fdatasync(self.descriptor) == 0
                    ? .success(()) : .failure(.io(path: self.path, operation: .sync, errno: errno))
                continuation.resume(returning: outcome)
            }
        }
    }
}
