import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A file the keystore makes durable itself (`GroupCommit`): the WAL, which SQLite writes,
/// and the record log, which the keystore writes. Opened once with the keystore:
/// `fdatasync` reports a write-back error only to descriptors open when it happened.
final class DurableFile: Sendable {
    let path: String
    private let descriptor: Int32
    /// The same file opened again for direct writes (`O_DIRECT`), or -1: `writeBlocks` then
    /// goes to the device without the page cache, so the flush after it has no pages to write
    /// back, only the device's cache to flush (13–17 µs less per flush, docs/benchmarks.md).
    private let direct: Int32

    private init(path: String, descriptor: Int32, direct: Int32 = -1) {
        self.path = path
        self.descriptor = descriptor
        self.direct = direct
    }

    deinit {
        close(descriptor)
        if direct >= 0 { close(direct) }
    }

    /// The unit of a direct write: offsets and lengths are multiples of it.
    static let blockSize = 4096

    /// Linux's `O_DIRECT`, which Glibc's module does not export (it is behind `_GNU_SOURCE`);
    /// its value differs between architectures.
    private static let directFlag: Int32? = {
        #if os(Linux) && arch(x86_64)
            return 0o40000
        #elseif os(Linux) && arch(arm64)
            return 0o200000
        #else
            return nil
        #endif
    }()

    /// The database's WAL, to flush what SQLite wrote to it.
    static func wal(databasePath: String) throws(KeystoreError) -> DurableFile {
        try opened(databasePath + "-wal", flags: O_RDONLY)
    }

    /// An existing file opened for reading and writing, refused when it is not a regular file
    /// of its own or when others have any permission on it (it holds sealed records, and
    /// whoever writes it decides what replay puts in the store).
    /// Also opened for direct writes where the file system allows them (`writeBlocks` falls
    /// back to the page cache where it does not).
    static func privateFile(_ path: String) throws(KeystoreError) -> DurableFile {
        let descriptor = open(path, O_RDWR | O_NOFOLLOW | O_CLOEXEC)
        guard descriptor >= 0 else { throw .io(path: path, operation: .read, errno: errno) }
        var info = stat()
        let refusal: KeystoreError? =
            fstat(descriptor, &info) != 0
            ? .io(path: path, operation: .read, errno: errno)
            : (info.st_mode & S_IFMT) != S_IFREG
                ? .io(path: path, operation: .read, errno: EINVAL)
                : info.st_mode & 0o077 != 0
                    ? .exposedFile(path: path, mode: UInt32(info.st_mode & 0o7777))
                    : nil
        if let refusal {
            close(descriptor)
            throw refusal
        }
        // Through the descriptor just checked, not the name, which another could have swapped meanwhile.
        let direct = Self.directFlag.map { open("/proc/self/fd/\(descriptor)", O_WRONLY | $0 | O_CLOEXEC) } ?? -1
        return DurableFile(path: path, descriptor: descriptor, direct: direct)
    }

    private static func opened(_ path: String, flags: Int32) throws(KeystoreError) -> DurableFile {
        let descriptor = open(path, flags | O_CLOEXEC)
        guard descriptor >= 0 else { throw .io(path: path, operation: .read, errno: errno) }
        return DurableFile(path: path, descriptor: descriptor)
    }

    /// The file's size in bytes.
    func size() throws(KeystoreError) -> Int {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw .io(path: path, operation: .read, errno: errno) }
        return Int(info.st_size)
    }

    /// `fdatasync`, on the calling thread.
    func flush() -> Result<Void, KeystoreError> {
        fdatasync(descriptor) == 0 ? .success(()) : .failure(.io(path: path, operation: .sync, errno: errno))
    }

    /// Writes all of `bytes` at `offset` (`pwrite`, on the calling thread).
    func write(_ bytes: [UInt8], at offset: Int) throws(KeystoreError) {
        let failure = bytes.withUnsafeBytes { buffer in
            buffer.isEmpty ? 0 : Self.writeAll(descriptor, buffer.baseAddress!, count: buffer.count, at: offset)
        }
        guard failure == 0 else { throw .io(path: path, operation: .write, errno: failure) }
    }

    /// `pwrite` until all `count` bytes from `base` are at `offset`: 0, or the errno that
    /// stopped it (EIO for a write that wrote nothing).
    private static func writeAll(_ descriptor: Int32, _ base: UnsafeRawPointer, count: Int, at offset: Int) -> Int32 {
        var done = 0
        while done < count {
            let wrote = pwrite(descriptor, base + done, count - done, off_t(offset + done))
            if wrote < 0 && errno == EINTR { continue }
            guard wrote > 0 else { return wrote < 0 ? errno : EIO }
            done += wrote
        }
        return 0
    }

    /// Writes `bytes` at `offset`, a multiple of `blockSize`, followed by zeros to the end of
    /// their last block: directly to the device when the file was opened so, through the page
    /// cache otherwise, or should the device refuse the direct write (EINVAL: the same blocks
    /// written again, whole).
    func writeBlocks(_ bytes: [UInt8], at offset: Int) throws(KeystoreError) {
        precondition(offset % Self.blockSize == 0, "a block write starts on a block")
        let length = Self.blocksLength(bytes.count)
        if direct >= 0 {
            let buffer = Self.blocks(bytes)
            defer { buffer.deallocate() }
            let failure = Self.writeAll(direct, buffer.baseAddress!, count: length, at: offset)
            if failure == 0 { return }
            guard failure == EINVAL else { throw .io(path: path, operation: .write, errno: failure) }
        }
        try write(bytes + [UInt8](repeating: 0, count: length - bytes.count), at: offset)
    }

    /// Bytes rounded up to whole blocks.
    private static func blocksLength(_ count: Int) -> Int {
        (count + blockSize - 1) / blockSize * blockSize
    }

    /// A copy of `bytes` in memory aligned for a direct write, zeros to the end of the last block.
    private static func blocks(_ bytes: [UInt8]) -> UnsafeMutableRawBufferPointer {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: blocksLength(bytes.count), alignment: blockSize)
        bytes.withUnsafeBytes { buffer.copyMemory(from: $0) }
        buffer[bytes.count...].initializeMemory(as: UInt8.self, repeating: 0)
        return buffer
    }

    /// Writes `count` zero bytes at `offset`, from one shared block rather than a buffer of
    /// their size.
    func writeZeros(count: Int, at offset: Int) throws(KeystoreError) {
        var done = 0
        while done < count {
            let chunk = min(Self.zeros.count, count - done)
            try write(chunk == Self.zeros.count ? Self.zeros : Array(Self.zeros.prefix(chunk)), at: offset + done)
            done += chunk
        }
    }

    private static let zeros = [UInt8](repeating: 0, count: 64 * 1024)

    /// The first `count` bytes, or fewer when the file is shorter.
    func read(_ count: Int) throws(KeystoreError) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        var filled = 0
        while filled < count {
            let got = bytes.withUnsafeMutableBytes { buffer in
                pread(descriptor, buffer.baseAddress! + filled, count - filled, off_t(filled))
            }
            if got < 0 && errno == EINTR { continue }
            guard got >= 0 else { throw .io(path: path, operation: .read, errno: errno) }
            if got == 0 { break }
            filled += got
        }
        if filled < count { bytes.removeSubrange(filled...) }
        return bytes
    }
}
