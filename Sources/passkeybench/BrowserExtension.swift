import Foundation

/// passkeyd in a page: `scripts/browser-extension-bench.py` times navigator.credentials in a
/// localhost page of Debian's headless chromium through the passkeyd extension and its native
/// host, then the host alone over its stdio with the same requests, then the page's sign-ins with
/// a host that answers at once (the hops alone), so the report can say what the browser's hops cost. Skipped, with the reason, when chromium, the extension or the
/// script is absent or the run fails; never needed by anything but `make bench`.
enum BrowserExtension {
    static let script = "scripts/browser-extension-bench.py"

    struct Figures {
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

    private struct Output: Decodable {
        var create: ReportedFigure
        var get: ReportedFigure
        var hostCreate: ReportedFigure
        var hostGet: ReportedFigure
        var echoGet: ReportedFigure
        var browser: String
    }

    static func measure(limits: RunLimits, passkeyd: String, passkeyctl: String, work: String) -> Outcome {
        guard FileManager.default.fileExists(atPath: script) else {
            return Outcome(skipped: "\(script) not found (run from the repository)")
        }
        guard FileManager.default.isExecutableFile(atPath: passkeyctl) else {
            return Outcome(skipped: "no passkeyctl at \(passkeyctl)")
        }
        let arguments = [
            "python3", script, "--duration", "\(limits.duration.seconds)", "--operations", "\(limits.operations)",
            "--passkeyd", passkeyd, "--passkeyctl", passkeyctl
        ]
        switch ReportingProgram.run("/usr/bin/env", arguments, log: work + "/browser-extension.log", as: Output.self) {
        case .failure(let skipped):
            return Outcome(skipped: skipped.reason)
        case .success(let decoded):
            return Outcome(
                figures: Figures(
                    create: decoded.create.measurement, get: decoded.get.measurement,
                    hostCreate: decoded.hostCreate.measurement, hostGet: decoded.hostGet.measurement,
                    echoGet: decoded.echoGet.measurement, browser: decoded.browser))
        }
    }
}
