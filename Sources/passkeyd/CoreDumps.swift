import CLinuxProcess
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Keeps the daemon's memory (the keystore key, private keys being used, the PIN hash) out of
/// core files and away from debuggers of the same user: no core file at all (RLIMIT_CORE 0,
/// setrlimit(2)), and not dumpable (PR_SET_DUMPABLE 0, prctl(2)), which also makes
/// /proc/PID/mem, environ and ptrace refuse processes of the same uid without CAP_SYS_PTRACE.
enum CoreDumps {
    /// Both settings, before any secret is read; an error names the call that failed.
    static func disable() throws(ValidationFailure) {
        var none = rlimit(rlim_cur: 0, rlim_max: 0)
        guard setrlimit(RLIMIT_CORE, &none) == 0 else {
            throw ValidationFailure(message: "passkeyd: cannot turn core dumps off (setrlimit: \(String(cString: strerror(errno))))")
        }
        guard passkeyd_set_dumpable(0) == 0 else {
            throw ValidationFailure(message: "passkeyd: cannot make the process non-dumpable (prctl: \(String(cString: strerror(errno))))")
        }
    }
}
