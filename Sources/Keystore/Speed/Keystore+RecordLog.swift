import GRDB

/// The record log, the keystore's side (`RecordLog` holds the file's state): a registration
/// (`save`) is appended to `keystore.log` and flushed with it, and SQLite takes the logged rows in
/// folds of 1 024 (docs/keystore.md, "The record log"). With `SpeedMechanisms.recordLog` off
/// (`PASSKEYD_SPEED_OFF=recordlog`) `save` commits into SQLite's WAL like any other write, the
/// plain path. The log's blocks are written by the flush that makes them durable.
extension Keystore {
    /// A registration (`save`): the row is appended to the record log, written by the next
    /// flush, and goes into SQLite's open transaction, committed in the next fold or write; every
    /// later call sees it.
    ///
    /// When no flush runs, the row's statements (~25 µs) go to GRDB's queue, which runs them on
    /// its own thread, while this one signs the registration and answers: with one client the
    /// other core is free (~6 % more registrations, docs/benchmarks.md). GRDB's queue runs them
    /// before any later use of the connection, so every later call still sees the row. They
    /// cannot be refused: the store holds fewer than `capacity`, and the replaced rows are
    /// deleted first. While a flush runs, other registrations keep both cores busy and the
    /// hand-off costs more than it frees: the statements run here.
    func register(_ row: CredentialRow) throws {
        let capacity = capacity
        try changing(diskFullIsStoreFull: true) { db in
            if !log.hasRoom(for: row) { try fold(db) }
            if !db.isInsideTransaction { try db.beginTransaction() }
            if groupCommit.flushing == nil, try Self.storedCount(db) < capacity {
                queue.asyncWriteWithoutTransaction { [self] db in storeLogged(row, db) }
            } else {
                try undoingOnFailure(db) { try Self.store(row, db, capacity: capacity) }
            }
            log.append(row)
            uncommitted.append(row)
            // Counted before the connection is let go: a lookup, which runs outside this
            // actor, that finds this row then finds it not yet durable too, so its answer
            // waits for the flush (a sign-in never shows a credential a crash could
            // still take back).
            groupCommit.recordCommit(to: .log)
        }
    }

    /// A registration's statements handed to GRDB's queue (`register`). Should they fail (an
    /// I/O error, no memory) the open transaction is lost and with it rows already acknowledged
    /// or about to be: the store stops, and its next open replays them from the record log.
    nonisolated func storeLogged(_ row: CredentialRow, _ db: Database) {
        guard !isClosed.load(ordering: .relaxed) else { return }
        do { try Self.store(row, db, capacity: nil) } catch {
            try? db.rollback()
            isClosed.store(true, ordering: .relaxed)
            Self.logger.error(
                "\(Self.keystoreError(error, path: path)); the keystore stops, and its next open replays the record log"
            )
        }
    }

    /// The half of the log being written is full: what it holds is committed into SQLite, the
    /// other half takes the next entries, and the WAL is flushed in the background, off every
    /// registration's way (the commit holds only logged registrations, whose answers wait for
    /// the log's flush, not the WAL's). Should the other half still wait for the last fold's
    /// flush, that flush is made here.
    func fold(_ db: Database) throws {
        if !log.otherHalfFree {
            try wal.flush().get()
            log.flushed(fold: log.folds)
        }
        if db.isInsideTransaction { try commit(db) }
        let fold = log.fold()
        let wal = wal
        Task.detached { [weak self] in
            guard case .success = wal.flush() else { return }
            await self?.foldFlushed(fold)
        }
    }

    func foldFlushed(_ fold: UInt64) { log.flushed(fold: fold) }
}
