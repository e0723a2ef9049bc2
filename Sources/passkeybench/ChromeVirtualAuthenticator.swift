import Foundation

/// Chrome's virtual authenticator as a baseline: `scripts/chrome-virtual-authenticator.py`
/// drives navigator.credentials in a localhost page of Debian's headless chromium over
/// the DevTools protocol. Skipped, with the reason, when chromium or the script is absent
/// or the run fails; never needed by anything but `make bench`.
enum ChromeVirtualAuthenticator {
    static let script = "scripts/chrome-virtual-authenticator.py"

    /// As the script prints them.
    struct Figures: Decodable {
        var create: Measurement
        var get: Measurement
        var browser: String
    }

    typealias Outcome = ReportedOutcome<Figures>

    static func measure(limits: RunLimits, work: String) -> Outcome {
        ReportingProgram.measure(script: script, limits: limits, log: work + "/chrome.log")
    }
}
