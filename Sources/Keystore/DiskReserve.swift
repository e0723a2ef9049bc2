import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Space the keystore holds back on its file system (`keystore.reserve`, allocated with
/// posix_fallocate(3)), given up when the disk fills so that the writes a sign-in or a PIN
/// needs still go through: a signature counter's new mark (`SignatureCounterLease`), PIN and
/// UV retries, the device state. Registrations never take it: they answer
/// `CTAP2_ERR_KEY_STORE_FULL` on a full disk (docs/faults.md).
///
/// 1 MiB: a counter mark's commit appends a few 4 KiB pages to the WAL, and one mark serves
/// 1 024 sign-ins of its credential, so the reserve carries hundreds of credentials' marks
/// after the disk filled. It is taken again once a registration finds room.
struct DiskReserve: Sendable {
    static let fileName = "keystore.reserve"
    static let size: off_t = 1 << 20

    let path: String
    /// Whether the file is there, allocated; kept by the keystore actor.
    private(set) var isHeld = false

    init(directory: String) {
        path = directory + "/" + Self.fileName
    }

    /// Allocates the file (again) when it is not held; false when the disk has no room for it.
    @discardableResult
    mutating func hold() -> Bool {
        if isHeld { return true }
        let fd = open(path, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        // posix_fallocate returns the error rather than setting errno.
        guard posix_fallocate(fd, 0, Self.size) == 0 else {
            _ = ftruncate(fd, 0)
            return false
        }
        isHeld = true
        return true
    }

    /// Gives the space back to the file system; false when there was none to give.
    mutating func release() -> Bool {
        guard isHeld else { return false }
        isHeld = false
        return unlink(path) == 0
    }
}
