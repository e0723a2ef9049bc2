import Foundation

/// What is at a socket path, seen from outside the daemon.
public enum SocketProbe {
    /// Whether `path` exists and is a socket file.
    public static func isSocket(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFSOCK
    }
}

/// Sockets made by hand, as a crashed daemon or a service manager leaves them.
public enum HandMadeSocket {
    /// A Unix stream socket bound to `path`, not yet listening; its descriptor (close-on-exec).
    public static func bound(at path: String) throws -> Int32 {
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw FixtureError("socket: \(String(cString: strerror(errno)))") }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8)) }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard result == 0 else {
            close(descriptor)
            throw FixtureError("bind \(path): \(String(cString: strerror(errno)))")
        }
        return descriptor
    }

    /// A socket file nobody accepts on: what a daemon killed with SIGKILL leaves.
    public static func stale(at path: String) throws {
        close(try bound(at: path))
    }

    /// A socket bound to `path` and listening, as systemd passes one to a socket-activated service.
    public static func listening(at path: String) throws -> Int32 {
        let descriptor = try bound(at: path)
        guard listen(descriptor, 16) == 0 else {
            close(descriptor)
            throw FixtureError("listen \(path): \(String(cString: strerror(errno)))")
        }
        return descriptor
    }
}
