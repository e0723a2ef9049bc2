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

    private init(path: String, descriptor: Int32) {
        self.path = path
        self.descriptor = descriptor
    }

    deinit { close(descriptor) }

    /// The database's WAL, to flush what SQLite wrote to it.
    static func wal(databasePath: String) throws(KeystoreError) -> DurableFile {
        try opened(databasePath + "-wal", flags: O_RDONLY)
    }

    /// An existing file opened for reading and writing, refused when it is not a regular file
    /// of its own or when others have any permission on it (it holds sealed records, and
    /// whoever writes it decides what replay puts in the store).
    static func privateFile(_ path: String) throws(KeystoreError) -> DurableFile {
        let file = try opened(path, flags: O_RDWR | O_NOFOLLOW)
        var info = stat()
        guard fstat(file.descriptor, &info) == 0 else { throw .io(path: path, operation: .read, errno: errno) }
        guard (info.st_mode & S_IFMT) == S_IFREG else { throw .io(path: path, operation: .read, errno: EINVAL) }
        guard info.st_mode & 0o077 == 0 else { throw .exposedFile(path: path, mode: UInt32(info.st_mode & 0o7777)) }
        return file
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
        var written = 0
        while written < bytes.count {
            let count = bytes.withUnsafeBytes { buffer in
                pwrite(descriptor, buffer.baseAddress! + written, buffer.count - written, off_t(offset + written))
            }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { throw .io(path: path, operation: .write, errno: count < 0 ? errno : EIO) }
            written += count
        }
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
