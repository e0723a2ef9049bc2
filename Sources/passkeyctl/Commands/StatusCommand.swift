import ArgumentParser
import CTAP
import CTAPHID
import Foundation

/// `passkeyctl status`: is the daemon up, where, since when, how it answers for the person
/// (vendor command STATUS).
struct StatusCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status", abstract: "Whether passkeyd is running, where and since when.")
    @OptionGroup var global: GlobalOptions

    func run() async throws {
        let reply = try await global.connect().vendor(.status)
        guard let status = try? DaemonStatus(bytes: reply) else {
            throw Failure.connection("The daemon at \(global.socketPath) answered STATUS with something unreadable.")
        }
        if global.json {
            Output.json(
                .object(
                    [
                        ("running", .bool(true)),
                        ("version", .string(status.version)),
                        ("pid", .int(status.pid)),
                        ("socket", .string(status.socket)),
                        ("startedAt", .string(status.startedAt.formatted(.iso8601))),
                        ("pending", .string(status.pending))
                    ] + (status.promptID.map { [("promptId", JSON.int(Int(truncatingIfNeeded: $0)))] } ?? [])
                        + (status.rpID.map { [("rpId", JSON.string($0))] } ?? [])
                        + (status.profile.map { [("profile", JSON.string($0))] } ?? [])
                        + DaemonModes(statusReply: reply).json))
        } else {
            let uptime = Int(Date().timeIntervalSince(status.startedAt))
            print(
                "passkeyd \(status.version) is running (pid \(status.pid)) on \(status.socket)"
                    + (status.profile.map { " as a \($0) key" } ?? "") + ", "
                    + "since \(status.startedAt.formatted(.iso8601)) (up \(Self.duration(uptime))); pending prompt: \(status.pending)"
                    + (status.promptID.map { " #\($0)" } ?? "") + (status.rpID.map { " for \($0)" } ?? "") + ".")
            print("modes: \(DaemonModes(statusReply: reply).summary)")
        }
    }

    static func duration(_ seconds: Int) -> String {
        if seconds < 60 { return "\(seconds)s" }
        if seconds < 3600 { return "\(seconds / 60)m \(seconds % 60)s" }
        return "\(seconds / 3600)h \(seconds % 3600 / 60)m"
    }
}
