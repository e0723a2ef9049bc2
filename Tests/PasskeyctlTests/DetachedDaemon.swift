import Foundation
import PasskeydTestSupport

/// A real passkeyd started as a user starts it (`--detach`), for `body`, stopped afterwards
/// whatever happens. Built-in UV is off unless `arguments` say otherwise, so tests do not
/// depend on the daemon's default.
func withDaemon(_ arguments: [String] = [], _ body: (PasskeydProcess) async throws -> Void) async throws {
    let arguments = arguments.contains("--uv") ? arguments : arguments + ["--uv", "off"]
    try await PasskeydProcess.with(arguments, mode: .detached, body)
}

extension PasskeydProcess {
    /// Runs passkeyctl against this daemon with only the environment given (plus PATH and HOME).
    func ctl(_ arguments: [String], pin: String? = nil, newPIN: String? = nil) throws -> ProcessRun {
        var environment = ["PASSKEYD_SOCKET": socket]
        if let pin { environment["PASSKEYCTL_PIN"] = pin }
        if let newPIN { environment["PASSKEYCTL_NEW_PIN"] = newPIN }
        return try ProcessRun.run(BuiltProducts.executable("passkeyctl"), arguments, environment: environment)
    }
}
