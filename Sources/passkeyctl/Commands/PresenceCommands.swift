import ArgumentParser

/// `passkeyctl approve` and `deny`: answer the presence or UV prompt pending under
/// `--presence prompt` / `--uv prompt` (vendor command PRESENCE, docs/vendor-commands.md).
enum PresenceAnswer {
    static func send(_ approve: Bool, global: GlobalOptions) async throws {
        let reply = try await global.connect().vendor(.presence, payload: [approve ? 1 : 0])
        guard reply.first == 1 else {
            throw Failure.notFound("No presence request is pending; nothing was \(approve ? "approved" : "denied").")
        }
        Report.done(json: global.json, approve ? "Approved the pending request." : "Denied the pending request.")
    }
}

struct ApproveCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "approve", abstract: "Approve the pending presence request.")
    @OptionGroup var global: GlobalOptions
    func run() async throws { try await PresenceAnswer.send(true, global: global) }
}

struct DenyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "deny", abstract: "Deny the pending presence request.")
    @OptionGroup var global: GlobalOptions
    func run() async throws { try await PresenceAnswer.send(false, global: global) }
}
