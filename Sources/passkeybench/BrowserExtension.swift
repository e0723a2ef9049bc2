import Foundation

/// passkeyd in a page: `scripts/browser-extension-bench.py` times navigator.credentials in a
/// localhost page of Debian's headless chromium through the passkeyd extension and its native
/// host, then the host alone over its stdio with the same requests, then the page's sign-ins with
/// a host that answers at once (the hops alone), so the report can say what the browser's hops cost. Skipped, with the reason, when chromium, the extension or the
/// script is absent or the run fails; never needed by anything but `make bench`.
enum BrowserExtension {
    static let script = "scripts/browser-extension-bench.py"

    /// As the script prints them.
    struct Figures: Decodable {
        /// In the page, through the extension and the host.
        var create: Measurement
        var get: Measurement
        /// `passkeyctl browser host` alone, framed on its stdio.
        var hostCreate: Measurement
        var hostGet: Measurement
        /// In the page, through the extension, with a host that answers each sign-in at once.
        var echoGet: Measurement
        var browser: String
    }

    typealias Outcome = ReportedOutcome<Figures>

    static func measure(limits: RunLimits, passkeyd: String, passkeyctl: String, work: String) -> Outcome {
        guard FileManager.default.isExecutableFile(atPath: passkeyctl) else {
            return Outcome(skipped: "no passkeyctl at \(passkeyctl)")
        }
        return ReportingProgram.measure(
            script: script, ["--passkeyd", passkeyd, "--passkeyctl", passkeyctl], limits: limits,
            log: work + "/browser-extension.log")
    }
}
