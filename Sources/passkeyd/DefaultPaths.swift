import CTAP
import Foundation

/// Where things live when no flag or environment variable says otherwise (design: "Names a user sees").
enum DefaultPaths {
    /// `$PASSKEYD_SOCKET`, else `$XDG_RUNTIME_DIR/passkeyd/ctaphid.sock`, else
    /// `/tmp/passkeyd-$UID/ctaphid.sock`: the path clients look at too.
    static func socket(environment: [String: String]) -> String {
        PasskeydSocket.defaultPath(environment: environment)
    }

    /// `$XDG_DATA_HOME/passkeyd`, else `~/.local/share/passkeyd`.
    static func dataDirectory(environment: [String: String]) -> String {
        if let data = environment["XDG_DATA_HOME"], !data.isEmpty {
            return data + "/passkeyd"
        }
        let home = environment["HOME"] ?? NSHomeDirectory()
        return home + "/.local/share/passkeyd"
    }
}
