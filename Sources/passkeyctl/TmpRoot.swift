import ArgumentParser
@main struct TmpRoot: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "passkeyctl", subcommands: [WebAuthnCommand.self])
}
