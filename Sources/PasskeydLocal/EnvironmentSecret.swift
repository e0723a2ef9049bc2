import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A secret handed over in an environment variable (`PASSKEYD_PASSPHRASE`, `PASSKEYCTL_PIN`),
/// taken out of the process once read: unset, and its bytes overwritten where they were, since
/// /proc/PID/environ shows the environment block the process started with, not the current
/// `environ`, and a child would inherit it.
public enum EnvironmentSecret {
    /// The variable's value, if set; afterwards it is gone from the environment.
    public static func take(_ variable: String) -> String? {
        guard let value = getenv(variable) else { return nil }
        let secret = String(cString: value)
        // getenv points just past "NAME=": wipe the whole entry, name included.
        let entry = value - (variable.utf8.count + 1)
        let length = strlen(entry)
        unsetenv(variable)
        memset(entry, 0, length)
        return secret
    }
}
