/// Group commit: a registration is written to the record log and SQLite commits into the WAL,
/// neither flushed at once (`synchronous = NORMAL`); one `fdatasync` of each file written
/// since the last flush then makes every write made before it durable at once. Whoever needs
/// its commits durable either leads the next flush (none runs) or waits for the flush that
/// starts after it; commits made while a flush runs share the one after it.
///
/// Order is kept by each file: the WAL's frames are appended in commit order and each frame's
/// checksum chains over all before it; the log's entries chain to the write before them,
/// commits into SQLite included (`RecordLogEntry.previous`). So recovery after a crash keeps
/// a prefix of the writes and never a later one without an earlier one.
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
        /// It runs the next flush, of these files, and reports its end with `flushEnded`.
        case lead(Files)
    }

    /// The files a write goes to, and a flush makes durable.
    struct Files: OptionSet, Sendable {
        let rawValue: UInt8
        static let log = Files(rawValue: 1)
        static let wal = Files(rawValue: 2)
    }

    /// Write transactions committed so far.
    private(set) var committed: UInt64 = 0
    /// Of those, how many a finished flush covers.
    private(set) var flushed: UInt64 = 0
    /// The number of commits the running flush covers; nil when none runs.
    private(set) var flushing: UInt64?
    private var waiters: [(upTo: UInt64, continuation: CheckedContinuation<Turn, Never>)] = []
    /// The last write to each file.
    private var lastToLog: UInt64 = 0
    private var lastToWAL: UInt64 = 0

    mutating func recordCommit(to file: Files) {
        committed += 1
        if file.contains(.log) { lastToLog = committed }
        if file.contains(.wal) { lastToWAL = committed }
    }

    /// The files written since the last successful flush: what the next one flushes.
    private var unflushedFiles: Files {
        var files: Files = []
        if lastToLog > flushed { files.insert(.log) }
        if lastToWAL > flushed { files.insert(.wal) }
        return files
    }

    var isDurable: Bool { flushed >= committed }
    /// Callers waiting for a flush.
    var waitingCount: Int { waiters.count }

    /// The caller's turn at once, or nil: it must `wait`, a flush runs already.
    mutating func turn() -> Turn? {
        if isDurable { return .finished(.success(())) }
        guard flushing == nil else { return nil }
        flushing = committed
        return .lead(unflushedFiles)
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
        leader.continuation.resume(returning: .lead(unflushedFiles))
    }
}
