import Foundation
import PasskeydLocal

#if canImport(Glibc)
    import Glibc
#endif

/// The socket's place in the file system: its private folder, the lock that
/// makes one daemon per path, and the removal of a stale socket left by a crash.
struct SocketFile: Sendable {
    let path: String
    var lockPath: String { path + ".lock" }

    /// What sits at the socket path.
    enum Probe: Equatable {
        case absent
        /// A socket file nobody accepts on: left by a daemon that died.
        case stale
        case live
        case notASocket
    }

    /// Creates the socket's folder 0700 when missing (design: folder 0700, socket 0600),
    /// then insists on the rule every client also checks (`SocketFolder`).
    func prepareDirectory() throws(DaemonError) {
        guard path.utf8.count <= 107 else { throw .socketPathTooLong(path: path) }
        let directory = SocketFolder.folder(of: path)
        if SocketFolder.verdict(forFolderOf: path) == .missing {
            let parent = (directory as NSString).deletingLastPathComponent
            if !parent.isEmpty, !FileManager.default.fileExists(atPath: parent) {
                do {
                    try FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true)
                } catch {
                    throw .cannotCreateDirectory(path: parent, errno: Self.posixCode(of: error))
                }
            }
            if mkdir(directory, 0o700) != 0, errno != EEXIST {
                throw .cannotCreateDirectory(path: directory, errno: errno)
            }
        }
        switch SocketFolder.verdict(forFolderOf: path) {
        case .trusted: return
        case .missing: throw .cannotCreateDirectory(path: directory, errno: ENOENT)
        case .notADirectory, .ownedByAnother, .writableByOthers: throw .unsafeSocketDirectory(path: directory)
        }
    }

    /// The POSIX code behind a Foundation file error, EIO when it carries none.
    private static func posixCode(of error: any Error) -> Int32 {
        let nsError = error as NSError
        if let underlying = nsError.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain
        {
            return Int32(underlying.code)
        }
        if nsError.domain == NSPOSIXErrorDomain { return Int32(nsError.code) }
        return EIO
    }

    /// Takes the per-path lock, held (through the returned descriptor) for the daemon's life.
    func lock() throws(DaemonError) -> Int32 {
        let descriptor = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw .cannotLock(path: lockPath, errno: errno) }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            close(descriptor)
            throw .alreadyRunning(socketPath: path)
        }
        return descriptor
    }

    func probe() -> Probe {
        var info = stat()
        guard lstat(path, &info) == 0 else { return .absent }
        guard info.st_mode & S_IFMT == S_IFSOCK else { return .notASocket }
        return Self.accepts(path) ? .live : .stale
    }

    /// Clears the way for binding: a stale socket goes, a live one or a non-socket stops us.
    func clearStale() throws(DaemonError) {
        switch probe() {
        case .absent: return
        case .live: throw .alreadyRunning(socketPath: path)
        case .notASocket: throw .notASocket(path: path)
        case .stale:
            if unlink(path) != 0, errno != ENOENT { throw .cannotRemoveStaleSocket(path: path, errno: errno) }
        }
    }

    /// Whether something accepts connections on the Unix socket at `path`.
    static func accepts(_ path: String) -> Bool {
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        guard let address = UnixSocketAddress(path: path) else { return false }
        return address.connect(descriptor)
    }
}
