import Foundation

/// Chrome's virtual authenticator as a baseline: `scripts/chrome-virtual-authenticator.py`
/// drives navigator.credentials in a localhost page of Debian's headless chromium over
/// the DevTools protocol. Skipped, with the reason, when chromium or the script is absent
/// or the run fails; never needed by anything but `make bench`.
enum ChromeVirtualAuthenticator {
    static let script = "scripts/chrome-virtual-authenticator.py"

    struct Figures {
        var create: Measurement
        var get: Measurement
        var browser: String
    }

    typealias Outcome = ReportedOutcome<Figures>

    private struct Output: Decodable {
        var create: ReportedFigure
        var get: ReportedFigure
        var browser: String
    }

    static func measure(limits: RunLimits, work: String) -> Outcome {
        guard FileManager.default.fileExists(atPath: script) else {
            return Outcome(skipped: "\(script) not found (run from the repository)")
        }
        let arguments = [
            "python3", script, "--duration", "\(limits.duration.seconds)", "--operations", "\(limits.operations)"
        ]
        switch ReportingProgram.run("/usr/bin/env", arguments, log: work + "/chrome.log", as: Output.self) {
        case .failure(let skipped):
            return Outcome(skipped: skipped.reason)
        case .success(let decoded):
            return Outcome(
                figures: Figures(
                    create: decoded.create.measurement, get: decoded.get.measurement, browser: decoded.browser))
        }
    }
}
