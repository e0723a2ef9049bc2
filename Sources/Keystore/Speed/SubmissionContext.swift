import Synchronization

#if canImport(CLinuxAIO)
    import CLinuxAIO
#endif

/// A Linux AIO context (`io_setup`), where a file's direct block writes are submitted
/// (`DurableFile.submitBlocks`). Contexts come from a pool and go back to it rather than being
/// destroyed: `io_destroy` waits for an RCU grace period, ~30 ms on this kind of machine, which
/// every keystore's close would pay (and the keystore fuzzer, opening one per input, ran 4×
/// slower). A context goes back only once nothing holds it, and a `SubmittedWrite` holds its
/// context until its write completed, so a context in the pool has nothing in flight;
/// completions carry a token, so a stray one could never answer another write's wait.
final class SubmissionContext: Sendable {
    let id: UInt
    private let pool: Pool

    fileprivate init(id: UInt, pool: Pool) {
        self.id = id
        self.pool = pool
    }

    deinit { pool.give(id) }

    /// Contexts let go, for the next file to take. One per process (`shared`) in the keystore.
    final class Pool: Sendable {
        private let idleContexts = Mutex<[UInt]>([])

        static let shared = Pool()

        /// Contexts waiting in the pool.
        var idle: Int { idleContexts.withLock { $0.count } }

        /// A context from the pool, or a new one; nil where the kernel offers none.
        func take() -> SubmissionContext? {
            if let id = idleContexts.withLock({ $0.popLast() }) { return SubmissionContext(id: id, pool: self) }
            #if canImport(CLinuxAIO)
                // One write in flight at a time (the record log's); a little room to spare.
                let id = UInt(passkeyd_aio_setup(4))
                return id == 0 ? nil : SubmissionContext(id: id, pool: self)
            #else
                return nil
            #endif
        }

        fileprivate func give(_ id: UInt) {
            idleContexts.withLock { $0.append(id) }
        }
    }

    private static let tokens = Atomic<UInt64>(0)

    /// Submits `buffer`'s write to `descriptor` at `offset`; returns what blocks until it
    /// completed (bytes written, or -errno), or nil when the kernel refused it.
    func write(_ buffer: UnsafeMutableRawBufferPointer, to descriptor: Int32, at offset: Int) -> (
        @Sendable () -> Int64
    )? {
        #if canImport(CLinuxAIO)
            let token = Self.tokens.add(1, ordering: .relaxed).newValue
            guard
                passkeyd_aio_pwrite(
                    aio_context_t(id), descriptor, buffer.baseAddress, buffer.count, Int64(offset), token) == 0
            else { return nil }
            // The closure holds the context until the write completed.
            return { [self] in passkeyd_aio_wait(aio_context_t(id), token) }
        #else
            return nil
        #endif
    }
}
