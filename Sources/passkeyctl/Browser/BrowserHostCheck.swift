import Foundation

/// `passkeyctl doctor`'s look at the browser host: for each browser, whether its user-level
/// manifest is there and names a host script that can run.
enum BrowserHostCheck {
    static func findings(environment: [String: String]) -> [Diagnosis] {
        Browser.allCases.compactMap { browser in
            guard let manifest = try? HostManifest.location(browser, profile: nil, environment: environment) else {
                return nil
            }
            let subject = "browser host (\(browser.displayName))"
            guard FileManager.default.fileExists(atPath: manifest.path) else {
                return .note(
                    subject, "not installed (no \(manifest.path))",
                    advice:
                        "for web pages through the passkeyd extension: `passkeyctl browser install --\(browser.rawValue)`"
                )
            }
            guard let host = manifest.installedHost() else {
                return .problem(
                    subject, "\(manifest.path) is not a host manifest this passkeyctl can read",
                    advice: "`passkeyctl browser install --\(browser.rawValue)` writes it again", status: .deviceError)
            }
            guard access(host, X_OK) == 0 else {
                return .problem(
                    subject,
                    "\(manifest.path) names \(host), which is missing or not executable: the extension cannot reach passkeyd",
                    advice: "`passkeyctl browser install --\(browser.rawValue)` writes it again", status: .deviceError)
            }
            return .ok(subject, "installed (\(manifest.path) → \(host))")
        }
    }
}
