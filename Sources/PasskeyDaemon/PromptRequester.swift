import Foundation
import PasskeydLocal

/// The program whose request is asking the person: the peer of the connection whose transaction
/// runs (SO_PEERCRED), named from /proc so a prompt can say who wants the touch. Any process of the
/// user may connect, so "which program asks" is what lets a person refuse a request they did not
/// start (what OpenSSH's own confirmation for `-sk` keys cannot say: it runs inside ssh).
public struct PromptRequester: Sendable, Equatable {
    public var pid: Int32
    /// How the prompt names it: the program's command line, or for a helper started without
    /// arguments (ssh-sk-helper) its name and its parent's command line: "ssh-sk-helper (ssh host)".
    public var program: String

    /// The peer of the connection whose transaction this task runs: bound by the connection when
    /// it starts the transaction, read by `PromptBroker.ask` (a task-local, so the authenticator in
    /// between needs to know nothing of connections). Only the credentials: /proc is read when a
    /// prompt is actually shown, never on a sign-in that asks nobody.
    @TaskLocal public static var peer: PeerCredentials?

    /// The program behind `peer`, when this task has one.
    public static var current: PromptRequester? { PromptRequester(peer: peer) }

    public init(pid: Int32, program: String) {
        self.pid = pid
        self.program = program
    }

    /// The requester from its peer credentials; nil when the kernel did not say who it is.
    public init?(peer: PeerCredentials?) {
        guard let peer, peer.pid > 0 else { return nil }
        self.init(pid: peer.pid, procRoot: "/proc")
    }

    /// Reads /proc/PID/cmdline (and the parent's, for a helper with no arguments). A process that
    /// already left is named by its pid alone.
    init(pid: Int32, procRoot: String) {
        self.pid = pid
        let own = Self.commandLine(pid, procRoot: procRoot)
        guard let own, let name = own.first else {
            program = "process \(pid)"
            return
        }
        let base = (name as NSString).lastPathComponent
        if own.count == 1, let parent = Self.parent(of: pid, procRoot: procRoot),
            let parentLine = Self.commandLine(parent, procRoot: procRoot), !parentLine.isEmpty, parent > 1
        {
            program = "\(base) (\(Self.shortened(parentLine)))"
        } else {
            program = Self.shortened([base] + own.dropFirst())
        }
    }

    /// A prompt line stays readable: 80 characters of arguments at most.
    static func shortened(_ words: [String]) -> String {
        var first = words.first.map { ($0 as NSString).lastPathComponent } ?? ""
        let rest = words.dropFirst().joined(separator: " ")
        if !rest.isEmpty { first += " " + rest }
        // Control characters in an argument must not reach the prompt as formatting.
        let clean = String(first.unicodeScalars.map { $0.properties.generalCategory == .control ? " " : Character($0) })
        return clean.count > 80 ? String(clean.prefix(79)) + "…" : clean
    }

    private static func commandLine(_ pid: Int32, procRoot: String) -> [String]? {
        guard let data = FileManager.default.contents(atPath: "\(procRoot)/\(pid)/cmdline"), !data.isEmpty else {
            return nil
        }
        return data.split(separator: 0, omittingEmptySubsequences: true).map { String(decoding: $0, as: UTF8.self) }
    }

    /// /proc/PID/stat's fourth field; the command name before it is in parentheses and may hold spaces.
    private static func parent(of pid: Int32, procRoot: String) -> Int32? {
        guard let text = try? String(contentsOfFile: "\(procRoot)/\(pid)/stat", encoding: .utf8),
            let close = text.lastIndex(of: ")")
        else { return nil }
        let fields = text[text.index(after: close)...].split(separator: " ")
        return fields.count > 1 ? Int32(fields[1]) : nil
    }
}
