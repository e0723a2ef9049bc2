import ArgumentParser
import Foundation
import PasskeydLocal

/// passkeyctl: passkeyd's command line (info, credentials, PIN, reset, presence, daemon status).
@main
struct Passkeyctl: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "passkeyctl",
        abstract: "Manage passkeyd: its credentials, its PIN, presence prompts and the daemon itself.",
        discussion: """
            The socket comes from --socket, else PASSKEYD_SOCKET, else passkeyd's default. The PIN comes from --pin-file, else PASSKEYCTL_PIN, else a hidden prompt on the terminal.

            Exit codes: 0 ok, 1 usage, 2 no daemon, 3 wrong PIN, 4 PIN blocked, 5 not found or ambiguous, 6 denied or cancelled, 7 other device error, 8 refused in the authenticator's current state (docs/passkeyctl.md).
            """,
        // The daemon's own version constant, so the two always agree.
        version: PasskeydVersion.text,
        subcommands: [
            InfoCommand.self, ListCommand.self, DeleteCommand.self, RenameCommand.self, PINCommand.self,
            ResetCommand.self, ApproveCommand.self, DenyCommand.self, ReplugCommand.self, StatusCommand.self,
            DoctorCommand.self,
            WebAuthnCommand.self, FaultCommands.self, WatchCommand.self, ExportCommand.self, ImportCommand.self,
            CredentialCommands.self,
            AttestationCACommand.self, MetadataCommand.self, BioCommands.self, ExecCommand.self, BrowserCommands.self
        ])

    @OptionGroup var global: GlobalOptions

    /// Parses, runs, and turns every failure into its sentence and exit status.
    static func main() async {
        // Words after `--` are another program's (`exec`), not passkeyctl's flags.
        let own = Array(CommandLine.arguments.dropFirst().prefix(while: { $0 != "--" }))
        let json = own.contains("--json")
        CommandLog.bootstrap(arguments: own, environment: ProcessInfo.processInfo.environment)
        do {
            var command = try parseAsRoot()
            if var asyncCommand = command as? AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch let failure as Failure {
            failure.report(json: json)
            Foundation.exit(failure.exitStatus.rawValue)
        } catch {
            let code = exitCode(for: error)
            if code == .success {
                print(fullMessage(for: error))
                Foundation.exit(0)
            }
            if let exitCode = error as? ExitCode { Foundation.exit(exitCode.rawValue) }
            Failure.usage(fullMessage(for: error)).report(json: json)
            Foundation.exit(ExitStatus.usage.rawValue)
        }
    }
}
