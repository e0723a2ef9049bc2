import Foundation

/// `passkeyctl doctor`'s look at each installed browser host beyond the user-level check: the
/// manifests `browser install --profile DIR` wrote (a Chromium `--user-data-dir` keeps its own),
/// and whether each host runs in unattended automation mode (`browser install --automation`),
/// where ceremonies are approved without asking anyone (issue 40 item 3).
enum BrowserHostModeCheck {
    /// Findings for the user-level manifests of both browsers and the Chromium manifest of each
    /// profile folder in `profiles`.
    static func findings(profiles: [String], environment: [String: String]) -> [Diagnosis] {
        var found: [Diagnosis] = []
        for browser in Browser.allCases {
            guard let manifest = try? HostManifest.location(browser, profile: nil, environment: environment),
                let host = manifest.installedHost()
            else { continue }
            found.append(mode(of: host, subject: "browser host mode (\(browser.displayName))"))
        }
        for profile in profiles {
            guard let manifest = try? HostManifest.location(.chromium, profile: profile, environment: environment)
            else { continue }
            let subject = "browser host (Chromium profile \(profile))"
            guard FileManager.default.fileExists(atPath: manifest.path) else {
                found.append(
                    .note(
                        subject, "not installed (no \(manifest.path))",
                        advice: "`passkeyctl browser install --chromium --profile \(profile)`"))
                continue
            }
            guard let host = manifest.installedHost(), access(host, X_OK) == 0 else {
                found.append(
                    .problem(
                        subject, "\(manifest.path) names no host that can run: the extension cannot reach passkeyd",
                        advice: "`passkeyctl browser install --chromium --profile \(profile)` writes it again",
                        status: .deviceError))
                continue
            }
            found.append(.ok(subject, "installed (\(manifest.path) → \(host))"))
            found.append(mode(of: host, subject: "browser host mode (Chromium profile \(profile))"))
        }
        return found
    }

    /// The wrapper script `browser install` wrote starts `browser host --automation` in automation mode.
    static func mode(of host: String, subject: String) -> Diagnosis {
        guard let script = try? String(contentsOfFile: host, encoding: .utf8) else {
            return .note(subject, "unknown (\(host) is not readable)")
        }
        guard script.contains(" browser host --automation") else {
            return .ok(subject, "the person approves each ceremony in the extension's window")
        }
        return .note(
            subject, "unattended automation: ceremonies are approved without asking anyone",
            advice:
                "fine for tests and CI; for the browser you browse with, `passkeyctl browser install` again without --automation"
        )
    }
}
