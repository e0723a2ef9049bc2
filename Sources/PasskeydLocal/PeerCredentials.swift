#if canImport(Glibc)
    import Glibc
#endif

/// Linux's `struct ucred`, what SO_PEERCRED returns (socket(7)): who is at the other end
/// of a Unix socket, as the kernel saw it at connect (client) or listen (server) time.
/// Glibc only declares it under _GNU_SOURCE, so it is spelled out here, field for field.
public struct PeerCredentials: Sendable {
    public var pid: pid_t = 0
    public var uid: uid_t = 0
    public var gid: gid_t = 0

    public init() {}
}

extension PeerCredentials {
    /// Who is at the other end of the Unix socket `descriptor` (SO_PEERCRED); nil if the kernel will not say.
    public init?(of descriptor: Int32) {
        self.init()
        var length = socklen_t(MemoryLayout<PeerCredentials>.size)
        guard getsockopt(descriptor, SOL_SOCKET, SO_PEERCRED, &self, &length) == 0 else { return nil }
    }
}
