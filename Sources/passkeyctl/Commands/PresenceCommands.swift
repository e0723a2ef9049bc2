import ArgumentParser
import CTAPHID

/// `passkeyctl approve` and `deny`: answer the presence or UV prompt pending under
/// `--presence prompt` / `--uv prompt` (vendor command PRESENCE, docs/vendor-commands.md).
/// The answer names the prompt STATUS showed, so it never reaches a later request.
enum PresenceAnswer {
    static func send(_ approve: Bool, global: GlobalOptions) async throws {
        let verb = approve ? "approved" : "denied"
        let transport = global.connect()
        guard let status = try? DaemonStatus(bytes: try await transport.vendor(.status)) else {
            throw Failure.connection("The daemon at \(global.socketPath) answered STATUS with something unreadable.")
        }
        guard let id = status.promptID else {
            throw Failure.notFound("No presence request is pending; nothing was \(verb).")
        }
        let what =
            (status.pending == "uv" ? "user verification" : "presence") + (status.rpID.map { " for \($0)" } ?? "")
        let reply = try await transport.vendor(
            .presence, payload: VendorCommand.presencePayload(approve: approve, promptID: id))
        guard reply.first == 1 else {
            throw Failure.notFound("The \(what) request ended before the answer arrived; nothing was \(verb).")
        }
        Report.done(json: global.json, "\(approve ? "Approved" : "Denied") the pending \(what) request.")
    }
}

struct ApproveCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "approve", abstract: "Approve the pending presence request.")
    @OptionGroup var global: GlobalOptions
    func run() async throws { try await PresenceAnswer.send(true, global: global) }
}

struct DenyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "deny", abstract: "Deny the pending presence request.")
    @OptionGroup var global: GlobalOptions
    func run() async throws { try await PresenceAnswer.send(false, global: global) }
}
