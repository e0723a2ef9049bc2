import ArgumentParser

/// `passkeyctl replug`: the REPLUG vendor command (docs/vendor-commands.md), a simulated power cycle.
struct ReplugCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "replug",
        abstract: "Simulate unplugging and replugging: tokens, the wrong-PIN streak and the reset window start afresh.")
    @OptionGroup var global: GlobalOptions

    func run() async throws {
        _ = try await global.connect().vendor(.replug)
        Report.done(
            json: global.json, "Replugged: the next 10 seconds allow `passkeyctl reset`, and PIN entry is open again.")
    }
}
