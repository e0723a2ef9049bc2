import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The floor under every keystore write: one 4 KiB page rewritten and fsynced, on the
/// filesystem the stores live on. The keystore commits with `synchronous = FULL`, so
/// each makeCredential, and each getAssertion (its signature counter), waits for at
/// least one of these; on a shared disk this figure moves from run to run, and the
/// keystore figures move with it.
struct DurableWriteBaseline: Sendable {
    let path: String

    /// Opens (creating) the probe file; the caller removes it with the work directory.
    func createFile() throws -> Int32 {
        let fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0o600)
        guard fd >= 0 else { throw BenchError.io(path: path, errno: errno) }
        return fd
    }

    static let page = [UInt8](repeating: 0x5A, count: 4096)

    /// One page written at offset 0, then fsync.
    static func writeAndSync(_ fd: Int32, path: String) throws {
        let written = page.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
        guard written == page.count, fsync(fd) == 0 else { throw BenchError.io(path: path, errno: errno) }
    }
}
