import Foundation

/// Why the daemon could not start or serve.
public enum DaemonError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Another passkeyd holds this socket path.
    case alreadyRunning(socketPath: String)
    /// Something other than a socket sits at the socket path; it is never removed.
    case notASocket(path: String)
    /// sockaddr_un holds at most 107 bytes of path.
    case socketPathTooLong(path: String)
    case cannotCreateDirectory(path: String, errno: Int32)
    /// The socket's folder is a symlink, not ours, or open to group/other.
    case unsafeSocketDirectory(path: String)
    case cannotLock(path: String, errno: Int32)
    case cannotBind(path: String, errno: Int32)
    case cannotRemoveStaleSocket(path: String, errno: Int32)

    public var description: String {
        switch self {
        case .alreadyRunning(let path):
            return "another passkeyd is already listening on \(path); stop it first or choose another --socket"
        case .notASocket(let path):
            return "\(path) exists and is not a socket; refusing to replace it"
        case .socketPathTooLong(let path):
            return "socket path is too long for a Unix socket (max 107 bytes): \(path)"
        case .cannotCreateDirectory(let path, let code):
            return "cannot create socket directory \(path): \(String(cString: strerror(code)))"
        case .unsafeSocketDirectory(let path):
            return
                "unsafe socket directory \(path): it must be a real directory owned by you that nobody else can write to (passkeyd creates its own with mode 0700)"
        case .cannotLock(let path, let code):
            return "cannot open lock file \(path): \(String(cString: strerror(code)))"
        case .cannotBind(let path, let code):
            return "cannot listen on \(path): \(String(cString: strerror(code)))"
        case .cannotRemoveStaleSocket(let path, let code):
            return "cannot remove stale socket \(path): \(String(cString: strerror(code)))"
        }
    }
}
