import Foundation

/// One finding of `passkeyctl doctor`: what was looked at, what was found, and what to do
/// when it is a problem.
struct Diagnosis: Sendable {
    enum Verdict: Sendable {
        case ok
        /// Worth knowing, nothing broken (no PIN yet, a keystore not created yet).
        case note
        /// Something stops passkeyd or its clients from working; the exit status says which kind.
        case problem(ExitStatus)
    }

    let subject: String
    let finding: String
    let verdict: Verdict
    /// The command or step that fixes it, for notes and problems.
    var advice: String?

    static func ok(_ subject: String, _ finding: String) -> Diagnosis {
        Diagnosis(subject: subject, finding: finding, verdict: .ok)
    }

    static func note(_ subject: String, _ finding: String, advice: String? = nil) -> Diagnosis {
        Diagnosis(subject: subject, finding: finding, verdict: .note, advice: advice)
    }

    static func problem(_ subject: String, _ finding: String, advice: String, status: ExitStatus = .noDaemon)
        -> Diagnosis
    {
        Diagnosis(subject: subject, finding: finding, verdict: .problem(status), advice: advice)
    }

    var isProblem: Bool {
        if case .problem = verdict { return true }
        return false
    }

    var mark: String {
        switch verdict {
        case .ok: return "ok"
        case .note: return "note"
        case .problem: return "PROBLEM"
        }
    }

    var json: JSON {
        .object([
            ("check", .string(subject)), ("verdict", .string(mark.lowercased())), ("found", .string(finding)),
            ("advice", .optional(advice))
        ])
    }

    /// A file's owner and permission bits, as `ls -l` would let a person check them.
    static func describe(_ info: stat) -> String {
        "owner uid \(info.st_uid), mode \(String(info.st_mode & 0o7777, radix: 8))"
    }
}
