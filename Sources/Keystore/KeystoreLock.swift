import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The exclusive hold an open keystore has on its directory: flock(2) on the directory
/// itself, taken before anything in it is inspected or created and released when the
/// keystore closes or its process ends (even by SIGKILL). Two daemons with different
/// sockets would otherwise share one keystore, each writing back its own cached device
/// state over the other's. Locking the directory rather than a file in it means a
/// refused open leaves the directory exactly as it was.
final class KeystoreLock: Sendable {
    private let descriptor: Int32

    private init(descriptor: Int32) { self.descriptor = descriptor }

    deinit { close(descriptor) }

    /// 2 s in 20 ms steps.
    private static let graceAttempts = 100

    /// Takes the lock, waiting at most a moment; `KeystoreError.inUse` when another open keystore holds it.
    static func acquire(_ directory: String) throws(KeystoreError) -> KeystoreLock {
        // Close-on-exec: a spawned child must not inherit, and so prolong, the hold.
        let fd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw .io(path: directory, operation: .lock, errno: errno) }
        // A hold can outlive its holder briefly: a child being spawned anywhere in the process
        // shares every descriptor until its exec closes them (O_CLOEXEC), and a daemon that is
        // stopping still holds it. So a refusal waits out a short grace period first.
        var attempts = 0
        while flock(fd, LOCK_EX | LOCK_NB) != 0 {
            let code = errno
            if code == EINTR { continue }
            if code == EWOULDBLOCK, attempts < graceAttempts {
                attempts += 1
                usleep(20_000)
                continue
            }
            var info = stat()
            let holder = fstat(fd, &info) == 0 ? holder(device: UInt64(info.st_dev), inode: UInt64(info.st_ino)) : nil
            close(fd)
            if code == EWOULDBLOCK { throw .inUse(directory: directory, holder: holder) }
            throw .io(path: directory, operation: .lock, errno: code)
        }
        return KeystoreLock(descriptor: fd)
    }

    /// The pid holding a FLOCK on the file, from /proc/locks (Linux): lines such as
    /// `3: FLOCK  ADVISORY  WRITE 1234 fd:00:5678 0 EOF`, the device as hex major:minor.
    /// Nil where /proc is absent: the refusal then names no pid.
    private static func holder(device: UInt64, inode: UInt64) -> Int32? {
        guard let table = procLocks() else { return nil }
        // The kernel's dev_t encoding (linux/kdev_t.h new_decode_dev).
        let major = (device >> 8) & 0xfff | (device >> 32) & ~0xfff
        let minor = device & 0xff | (device >> 12) & ~0xff
        for line in table.split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count >= 6, fields[1] == "FLOCK" else { continue }  // a waiter's line reads "-> FLOCK"
            let file = fields[5].split(separator: ":")
            guard file.count == 3, UInt64(file[0], radix: 16) == major, UInt64(file[1], radix: 16) == minor,
                UInt64(file[2]) == inode
            else { continue }
            return Int32(fields[4])
        }
        return nil
    }

    /// /proc/locks in as few read(2) calls as possible: the kernel renders it a buffer at a
    /// time, and a table read in small pieces while other locks come and go can skip lines.
    private static func procLocks() -> String? {
        let fd = open("/proc/locks", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var table: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count > 0 { table += buffer[..<count] } else if count < 0, errno == EINTR { continue } else { break }
        }
        return String(decoding: table, as: UTF8.self)
    }
}
