import CLinuxProcess
import Foundation

/// Keeps the daemon's memory (the keystore's data key, private keys being used, the PIN hash)
/// out of core files and away from the user's other processes: no core file at all
/// (RLIMIT_CORE 0, setrlimit(2)), and not dumpable (PR_SET_DUMPABLE 0, prctl(2)), which also
/// makes /proc/PID/mem, environ and ptrace refuse processes of the same uid without
/// CAP_SYS_PTRACE (docs/keystore.md, "Threat model").
enum CoreDumps {
    /// Both settings, before any secret is read; an error names the call that failed.
    static func disable() throws(ValidationFailure) {
        let failed = passkeyd_disable_core_dumps()
        guard failed == 0 else {
            let call = failed == 1 ? "setrlimit(RLIMIT_CORE)" : "prctl(PR_SET_DUMPABLE)"
            throw ValidationFailure(
                message: "passkeyd: cannot turn core dumps off (\(call): \(String(cString: strerror(errno))))")
        }
    }
}
