import PasskeydLocal

/// `PASSKEYD_PASSPHRASE`, taken out of the process once read (`EnvironmentSecret`). A detached
/// child gets it through a pipe (`Detach`), never through its environment or arguments.
enum EnvironmentPassphrase {
    static let variable = "PASSKEYD_PASSPHRASE"

    /// The passphrase, if the variable was set; afterwards it is gone from the environment.
    static func take() -> String? {
        EnvironmentSecret.take(variable)
    }
}
