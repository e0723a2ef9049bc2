import Foundation

/// What is at a socket path, seen from outside the daemon.
public enum SocketProbe {
    /// Whether `path` exists and is a socket file.
    public static func isSocket(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFSOCK
    }
}
