import Foundation

/// A program that prints its figures as one JSON object on stdout and says what went wrong on
/// stderr (Chrome's script, the libfido2 client): its decoded output, or why there is none,
/// in a sentence for the report.
enum ReportingProgram {
    /// One of `scripts/`, run by python3 with the run's limits and `arguments`; skipped when
    /// it is absent (passkeybench runs from the repository).
    static func measure<Figures: Decodable>(
        script: String, _ arguments: [String] = [], limits: RunLimits, log: String
    ) -> ReportedOutcome<Figures> {
        guard FileManager.default.fileExists(atPath: script) else {
            return ReportedOutcome(skipped: "\(script) not found (run from the repository)")
        }
        let command =
            [
                "python3", script, "--duration", "\(limits.duration.seconds)", "--operations", "\(limits.operations)"
            ] + arguments
        return ReportedOutcome(run("/usr/bin/env", command, log: log, as: Figures.self))
    }

    struct Skipped: Error {
        var reason: String
    }

    static func run<Output: Decodable>(_ executable: String, _ arguments: [String], log: String, as _: Output.Type)
        -> Result<Output, Skipped>
    {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let output = Pipe()
        _ = FileManager.default.createFile(atPath: log, contents: nil)
        process.standardOutput = output
        process.standardError = FileHandle(forWritingAtPath: log)
        do { try process.run() } catch {
            return .failure(Skipped(reason: "\(executable) could not be started: \(error)"))
        }
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let said = ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").trimmingCharacters(
            in: .whitespacesAndNewlines)
        guard process.terminationStatus == 0 else {
            return .failure(Skipped(reason: said.isEmpty ? "it exited with \(process.terminationStatus)" : said))
        }
        guard let decoded = try? JSONDecoder().decode(Output.self, from: data) else {
            return .failure(Skipped(reason: "its output was not understood"))
        }
        return .success(decoded)
    }
}

/// What a figure taken by another program came to: its figures, or why there are none.
struct ReportedOutcome<Figures> {
    var figures: Figures?
    var skipped: String?
}

extension ReportedOutcome {
    init(_ result: Result<Figures, ReportingProgram.Skipped>) {
        switch result {
        case .success(let figures): self.init(figures: figures)
        case .failure(let skipped): self.init(skipped: skipped.reason)
        }
    }
}
