import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// `PASSKEYD_PASSPHRASE`, taken out of the process once read: unset, and its bytes
/// overwritten where they were, since /proc/PID/environ shows the environment block the
/// process started with, not the current `environ`. A detached child gets it through a
/// pipe (`Detach`), never through its environment or arguments.
enum EnvironmentPassphrase {
    static let variable = "PASSKEYD_PASSPHRASE"

    /// The passphrase, if the variable was set; afterwards it is gone from the environment.
    static func take() -> String? {
        guard let value = getenv(variable) else { return nil }
        let passphrase = String(cString: value)
        // getenv points just past "NAME=": wipe the whole entry, name included.
        let entry = value - (variable.utf8.count + 1)
        let length = strlen(entry)
        unsetenv(variable)
        memset(entry, 0, length)
        return passphrase
    }
}
