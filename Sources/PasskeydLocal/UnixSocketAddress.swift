#if canImport(Glibc)
    import Glibc
#endif

/// The address of passkeyd's socket as the kernel takes it (`sockaddr_un`), and the two
/// calls that take one: the daemon binds it, hosts (and the daemon's probe for a stale
/// socket) connect to it.
public struct UnixSocketAddress: Sendable {
    private var address = sockaddr_un()

    /// Nil when `path` does not fit `sun_path` (107 bytes and a terminating zero) or holds a zero byte.
    public init?(path: String) {
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path), !bytes.contains(0) else { return nil }
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
    }

    /// bind(2); false with `errno` set when it fails.
    public func bind(_ descriptor: Int32) -> Bool {
        withSockaddr { Glibc.bind(descriptor, $0, $1) == 0 }
    }

    /// connect(2) on a blocking socket; false with `errno` set when it fails.
    public func connect(_ descriptor: Int32) -> Bool {
        withSockaddr { Glibc.connect(descriptor, $0, $1) == 0 }
    }

    private func withSockaddr<T>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> T) -> T {
        withUnsafePointer(to: address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
    }
}
