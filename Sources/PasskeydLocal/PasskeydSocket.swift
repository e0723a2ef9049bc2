import Foundation

/// Where passkeyd's virtual HID device lives, shared by the daemon and every client
/// so both find the same socket without configuration.
public enum PasskeydSocket {
    /// Which rule picked the default path, so `passkeyctl doctor` can say why.
    public enum Reason: Sendable, Equatable {
        /// `$PASSKEYD_SOCKET` names it.
        case environment
        /// `$XDG_RUNTIME_DIR/passkeyd/ctaphid.sock`: the login session's private runtime folder.
        case runtimeDirectory
        /// `/tmp/passkeyd-$UID/ctaphid.sock`: no XDG_RUNTIME_DIR (no login session, e.g. a container).
        case temporaryFallback
    }

    /// `$PASSKEYD_SOCKET`, else `$XDG_RUNTIME_DIR/passkeyd/ctaphid.sock`, else
    /// `/tmp/passkeyd-$UID/ctaphid.sock`, with the rule that chose it.
    public static func choose(environment: [String: String] = ProcessInfo.processInfo.environment) -> (
        path: String, reason: Reason
    ) {
        if let explicit = environment["PASSKEYD_SOCKET"], !explicit.isEmpty { return (explicit, .environment) }
        if let runtime = environment["XDG_RUNTIME_DIR"], !runtime.isEmpty {
            return (runtime + "/passkeyd/ctaphid.sock", .runtimeDirectory)
        }
        return ("/tmp/passkeyd-\(getuid())/ctaphid.sock", .temporaryFallback)
    }

    /// The default path (see `choose`).
    public static func defaultPath(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        choose(environment: environment).path
    }
}
