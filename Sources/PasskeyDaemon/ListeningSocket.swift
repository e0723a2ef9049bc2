import PasskeydLocal

#if canImport(Glibc)
    import Glibc
#endif

/// Where the server's listening socket comes from.
public enum ListeningSocket: Sendable, Equatable {
    /// passkeyd binds the socket path itself, and removes the file when it stops.
    case bind
    /// A socket already bound to the path and listening, handed over by a service manager
    /// (systemd socket activation). The file stays the manager's: it is neither replaced at
    /// start nor removed at stop, so the next connection can start passkeyd again.
    case inherited(descriptor: Int32)

    /// The listening descriptor: `path` bound now, or the inherited one. Either acceptor
    /// (`ConnectionAcceptor`) takes it over and closes it when it stops.
    func open(path: String) throws(DaemonError) -> Int32 {
        switch self {
        case .inherited(let descriptor): return descriptor
        case .bind: break
        }
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw .cannotBind(path: path, errno: errno) }
        guard let address = UnixSocketAddress(path: path) else {
            close(descriptor)
            throw .socketPathTooLong(path: path)
        }
        // As deep as the kernel allows: a burst of non-blocking connects must not meet EAGAIN.
        guard address.bind(descriptor), listen(descriptor, SOMAXCONN) == 0 else {
            let code = errno
            close(descriptor)
            throw .cannotBind(path: path, errno: code)
        }
        return descriptor
    }
}
