import Foundation

/// Where passkeyd keeps its keystore when no flag says otherwise (design: "Names a user
/// sees"): the daemon opens it there and `passkeyctl doctor` looks there.
public enum PasskeydDataFolder {
    /// Which rule picked the folder.
    public enum Reason: Sendable, Equatable {
        /// `$PASSKEYD_DATA_DIR` names it.
        case environment
        /// `$XDG_DATA_HOME/passkeyd`.
        case dataHome
        /// `~/.local/share/passkeyd`: XDG_DATA_HOME is not set.
        case home
    }

    /// `$PASSKEYD_DATA_DIR`, else `$XDG_DATA_HOME/passkeyd`, else `~/.local/share/passkeyd`.
    public static func choose(environment: [String: String] = ProcessInfo.processInfo.environment) -> (
        path: String, reason: Reason
    ) {
        if let explicit = environment["PASSKEYD_DATA_DIR"], !explicit.isEmpty { return (explicit, .environment) }
        if let data = environment["XDG_DATA_HOME"], !data.isEmpty { return (data + "/passkeyd", .dataHome) }
        return ((environment["HOME"] ?? NSHomeDirectory()) + "/.local/share/passkeyd", .home)
    }
}
