#if canImport(Glibc)
import Glibc
#endif

/// Linux's `struct ucred`, what SO_PEERCRED returns (socket(7)). Glibc only
/// declares it under _GNU_SOURCE, so it is spelled out here, field for field.
struct PeerCredentials: Sendable {
    var pid: pid_t = 0
    var uid: uid_t = 0
    var gid: gid_t = 0
}
