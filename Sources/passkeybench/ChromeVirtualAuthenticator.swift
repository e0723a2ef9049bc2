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

    /// The figures, or why there are none.
    struct Outcome {
        var figures: Figures?
        var skipped: String?
    }

    private struct Output: Decodable {
        var create: ReportedFigure
        var get: ReportedFigure
        var browser: String
    }

    static func measure(limits: RunLimits, work: String) -> Outcome {
        guard FileManager.default.fileExists(atPath: script) else { return Outcome(skipped: "\(script) not found (run from the repository)") }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script, "--duration", "\(limits.duration.seconds)", "--operations", "\(limits.operations)"]
        let output = Pipe(), errors = work + "/chrome.log"
        _ = FileManager.default.createFile(atPath: errors, contents: nil)
        process.standardOutput = output
        process.standardError = FileHandle(forWritingAtPath: errors)
        do { try process.run() } catch { return Outcome(skipped: "python3 could not be started: \(error)") }
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let said = ((try? String(contentsOfFile: errors, encoding: .utf8)) ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        guard process.terminationStatus == 0 else {
            return Outcome(skipped: said.isEmpty ? "the script exited with \(process.terminationStatus)" : said)
        }
        guard let decoded = try? JSONDecoder().decode(Output.self, from: data) else {
            return Outcome(skipped: "the script's output was not understood")
        }
        return Outcome(figures: Figures(create: decoded.create.measurement, get: decoded.get.measurement, browser: decoded.browser))
    }
}
