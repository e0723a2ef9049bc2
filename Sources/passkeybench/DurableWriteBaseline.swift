import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The floor under every keystore write: one 4 KiB page written and `fdatasync`ed (as
/// SQLite syncs its WAL on Linux) on the filesystem the stores live on. The keystore
/// commits with `synchronous = FULL`, so each makeCredential, and each getAssertion
/// (its signature counter), waits for at least one of these.
///
/// Two cases, because the WAL has both: a page rewritten in place (a WAL reused after
/// a checkpoint) needs only the data flushed; a page appended (a WAL still growing)
/// also changes the file size, which costs a filesystem journal commit.
struct DurableWriteBaseline: Sendable {
    enum Placement: Sendable { case overwrite, append }

    let path: String
    let placement: Placement

    /// Opens (creating) the probe file; the caller removes it with the work directory.
    func createFile() throws -> Int32 {
        let fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0o600)
        guard fd >= 0 else { throw BenchError.io(path: path, errno: errno) }
        return fd
    }

    static let page = [UInt8](repeating: 0x5A, count: 4096)

    /// Writes the `index`-th page (always page 0 when overwriting), then fdatasync.
    func writeAndSync(_ fd: Int32, index: Int) throws {
        let offset = placement == .overwrite ? 0 : off_t(index) * off_t(Self.page.count)
        let written = Self.page.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, offset) }
        guard written == Self.page.count, fdatasync(fd) == 0 else { throw BenchError.io(path: path, errno: errno) }
    }
}
