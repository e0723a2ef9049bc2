import Foundation

/// Where the keystore lives when no flag or environment variable says otherwise (design: "Names a user sees").
enum DefaultPaths {
    /// `$XDG_DATA_HOME/passkeyd`, else `~/.local/share/passkeyd`.
    static func dataDirectory(environment: [String: String]) -> String {
        if let data = environment["XDG_DATA_HOME"], !data.isEmpty {
            return data + "/passkeyd"
        }
        let home = environment["HOME"] ?? NSHomeDirectory()
        return home + "/.local/share/passkeyd"
    }
}
