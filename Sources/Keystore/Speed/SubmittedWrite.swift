import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A direct block write the kernel took (`DurableFile.submitBlocks`) and the device may still
/// be doing: `wait()` returns its outcome once it completed. It keeps the write's buffer until
/// then, and waits in `deinit` if nobody did, so the kernel never reads freed memory; and what
/// it writes, so a failed write can be made again another way (`DurableFile.complete`).
final class SubmittedWrite: Sendable {
    let bytes: [UInt8]
    let offset: Int
    private let path: String
    private let length: Int
    /// The buffer's address and the outcome, once known: the buffer is freed then.
    private let state: Mutex<(buffer: UnsafeMutableRawBufferPointer?, outcome: Result<Void, KeystoreError>?)>
    /// Blocks until the write completed: bytes written, or -errno.
    private let completion: @Sendable () -> Int64

    init(
        _ bytes: [UInt8], at offset: Int, path: String, buffer: sending UnsafeMutableRawBufferPointer,
        completion: @escaping @Sendable () -> Int64
    ) {
        self.bytes = bytes
        self.offset = offset
        self.path = path
        length = buffer.count
        state = Mutex((buffer, nil))
        self.completion = completion
    }

    deinit { _ = wait() }

    /// The write's outcome, after it completed; later calls return the same.
    func wait() -> Result<Void, KeystoreError> {
        state.withLock { state in
            if let outcome = state.outcome { return outcome }
            let result = completion()
            let outcome: Result<Void, KeystoreError> =
                result == Int64(length)
                ? .success(()) : .failure(.io(path: path, operation: .write, errno: result < 0 ? Int32(-result) : EIO))
            state.buffer?.deallocate()
            state = (nil, outcome)
            return outcome
        }
    }
}
