import Foundation

/// Where passkeyd's virtual HID device lives, shared by the daemon and every client
/// so both find the same socket without configuration.
public enum PasskeydSocket {
    /// `$PASSKEYD_SOCKET`, else `$XDG_RUNTIME_DIR/passkeyd/ctaphid.sock`, else
    /// `/tmp/passkeyd-$UID/ctaphid.sock`.
    public static func defaultPath(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let explicit = environment["PASSKEYD_SOCKET"], !explicit.isEmpty { return explicit }
        if let runtime = environment["XDG_RUNTIME_DIR"], !runtime.isEmpty {
            return runtime + "/passkeyd/ctaphid.sock"
        }
        return "/tmp/passkeyd-\(getuid())/ctaphid.sock"
    }
}
