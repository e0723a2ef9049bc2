import Authenticator

/// Group commit, the keystore's side (`GroupCommit` holds the state): `durable()` lets several
/// callers share one flush of the WAL and the record log, led off the actor by the first caller
/// that needs one. With `SpeedMechanisms.groupCommit` off (`PASSKEYD_SPEED_OFF=groupcommit`) each
/// caller flushes while it holds the store (`flushHoldingTheStore`), the plain path.
extension Keystore {
    /// Returns once every transaction committed before the call is on disk; several
    /// callers share one flush (`GroupCommit`). `@concurrent`: the flush this caller may
    /// lead runs off the actor, on the caller's own thread (its task executor's, in the daemon
    /// the connection's event loop or, when others share that loop, the pool), while others
    /// commit and read.
    @concurrent public nonisolated func durable() async throws(CredentialStoreError) {
        if everythingDurable.load(ordering: .acquiring) { return }
        let outcome: Result<Void, KeystoreError>
        if off.contains(.groupCommit) {
            outcome = await flushHoldingTheStore()
        } else {
            switch await flushTurn() {
            case .finished(let result): outcome = result
            case .lead(let files, let writes):
                outcome = flush(files, writing: writes)
                await flushEnded(outcome, wrote: writes)
            }
        }
        if case .failure(let failure) = outcome { throw .failed(failure) }
    }

    /// The plain path with group commit off (`SpeedMechanisms.groupCommit`): the caller flushes
    /// everything committed so far on the actor, so no other call runs until the flush ends, and
    /// no flush is shared with a caller that comes later. No flush runs beside it: each is made
    /// here, whole, without a suspension.
    func flushHoldingTheStore() -> Result<Void, KeystoreError> {
        guard let turn = groupCommit.turn() else { preconditionFailure("a flush runs beside one that holds the store") }
        switch leading(turn) {
        case .finished(let result): return result
        case .lead(let files, let writes):
            let outcome = flush(files, writing: writes)
            flushEnded(outcome, wrote: writes)
            return outcome
        }
    }

    /// What a caller of `durable()` does next: as `GroupCommit.Turn`, and a leader also writes
    /// the record log's entries not yet written before it flushes.
    enum FlushTurn {
        case finished(Result<Void, KeystoreError>)
        case lead(GroupCommit.Files, writes: [RecordLog.BlockWrite])
    }

    func flushTurn() async -> FlushTurn {
        let turn =
            if let turn = groupCommit.turn() { turn } else {
                await withCheckedContinuation { continuation in groupCommit.wait(continuation) }
            }
        return leading(turn)
    }

    /// `turn` as `FlushTurn`: a leader takes the log's entries.
    func leading(_ turn: GroupCommit.Turn) -> FlushTurn {
        switch turn {
        case .finished(let result): return .finished(result)
        // Taken once the turn is this caller's: every entry of the commits it covers is logged by now.
        case .lead(let files): return .lead(files, writes: files.contains(.log) ? log.takeWrites() : [])
        }
    }

    /// The record log's blocks not yet written written, then one `fdatasync` of each file.
    nonisolated func flush(_ files: GroupCommit.Files, writing writes: [RecordLog.BlockWrite]) -> Result<
        Void, KeystoreError
    > {
        if files.contains(.log) {
            do {
                for write in writes { try logFile.writeBlocks(write.bytes, at: write.offset) }
            } catch { return .failure(error) }
            if case .failure(let failure) = logFile.flush() { return .failure(failure) }
        }
        return files.contains(.wal) ? wal.flush() : .success(())
    }

    /// `writes` were written when the flush succeeded.
    func flushEnded(_ outcome: Result<Void, KeystoreError>, wrote writes: [RecordLog.BlockWrite]) {
        if case .success = outcome { log.wrote(writes) } else { log.untake() }
        groupCommit.flushEnded(outcome)
    }
}
