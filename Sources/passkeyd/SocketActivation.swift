import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// systemd socket activation without libsystemd: sd_listen_fds(3) semantics. A manager
/// that passes sockets sets LISTEN_PID to our pid and LISTEN_FDS to their count, starting at
/// descriptor 3 (SD_LISTEN_FDS_START). The variables are removed once read, whoever they were
/// for, so no child of ours mistakes them for its own; the descriptor is made close-on-exec.
enum SocketActivation {
    static let firstDescriptor: Int32 = 3
    static let variables = ["LISTEN_PID", "LISTEN_FDS", "LISTEN_FDNAMES"]

    /// The socket a manager handed over: a listening Unix stream socket bound to a path.
    struct Inherited: Equatable {
        let descriptor: Int32
        let path: String
    }

    /// Why a socket passed to passkeyd cannot be served.
    enum Refusal: Error, CustomStringConvertible {
        case count(String)
        case notAUnixStreamListener
        case abstractOrUnnamed

        var description: String {
            switch self {
            case .count(let text):
                return
                    "socket activation passed LISTEN_FDS=\(text); passkeyd serves exactly one socket (ListenStream= once in passkeyd.socket)"
            case .notAUnixStreamListener:
                return
                    "socket activation passed descriptor 3, which is not a listening Unix stream socket (passkeyd.socket needs ListenStream=<path>)"
            case .abstractOrUnnamed:
                return
                    "socket activation passed a socket with no file-system path; passkeyd needs one so it can check its folder"
            }
        }
    }

    /// The inherited socket, nil when none was passed to this process; the variables are gone afterwards.
    static func take() throws(Refusal) -> Inherited? {
        let environment = ProcessInfo.processInfo.environment
        defer { variables.forEach { unsetenv($0) } }
        // Not for us: a variable inherited from a parent that was itself activated.
        guard let pid = environment["LISTEN_PID"].flatMap(pid_t.init), pid == getpid() else { return nil }
        guard let countText = environment["LISTEN_FDS"] else { return nil }
        guard countText == "1" else { throw .count(countText) }
        let descriptor = firstDescriptor
        guard isUnixStreamListener(descriptor) else { throw .notAUnixStreamListener }
        guard let path = boundPath(of: descriptor) else { throw .abstractOrUnnamed }
        _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
        return Inherited(descriptor: descriptor, path: path)
    }

    /// sd_is_socket_unix(fd, SOCK_STREAM, 1, …): the family, the type and SO_ACCEPTCONN.
    private static func isUnixStreamListener(_ descriptor: Int32) -> Bool {
        func option(_ name: Int32) -> Int32? {
            var value: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            return getsockopt(descriptor, SOL_SOCKET, name, &value, &length) == 0 ? value : nil
        }
        return option(SO_DOMAIN) == AF_UNIX && option(SO_TYPE) == Int32(SOCK_STREAM.rawValue)
            && option(SO_ACCEPTCONN) == 1
    }

    /// The path the socket is bound to (getsockname); nil for an abstract or unnamed socket.
    private static func boundPath(of descriptor: Int32) -> String? {
        var address = sockaddr_un()
        var length = socklen_t(MemoryLayout<sockaddr_un>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        guard named == 0 else { return nil }
        let path = withUnsafeBytes(of: &address.sun_path) { bytes in
            String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
        }
        // An abstract name starts with NUL, so it reads as empty here.
        return path.isEmpty ? nil : path
    }
}
