import ArgumentParser
import Authenticator
import CTAP
import CTAPHID
import Foundation
import Logging
import PasskeyClient
import PasskeydLocal
import WebAuthn

/// `passkeydemo`: the six classic passkey sign-in scenarios, end to end — PasskeyClient in
/// the browser's role, passkeyd (or an in-process authenticator) as the authenticator, and a
/// relying party that really verifies. Each scenario prints what happened and why it passed.
/// On a terminal without `--scenario` it is the seed apps instead: a feature list to pick from,
/// the person answering every prompt, and the courier app's account flows.
@main
struct PasskeyDemo: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "passkeydemo",
        abstract: "Run the six passkey sign-in scenarios end to end against a verifying relying party.",
        discussion: """
            Scenarios: \(Scenario.allCases.map(\.rawValue).joined(separator: ", ")).

            On a terminal with no --scenario: the interactive feature list (arrow keys or a number), with the courier \
            app's account flows; its session and server state live in --state-dir.

            With --web: the same apps as web pages on 127.0.0.1 (the shop at http://localhost:PORT, the courier app at \
            http://courier.localhost:PORT), signed in through the browser's WebAuthn (passkeyd's extension).
            """)

    @Option(
        help:
            "The daemon's socket (default: $PASSKEYD_SOCKET, $XDG_RUNTIME_DIR/passkeyd/ctaphid.sock, /tmp/passkeyd-$UID/ctaphid.sock)."
    )
    var socket: String?

    @Flag(help: "Use an authenticator inside this process instead of the daemon (nothing is stored).")
    var inProcess = false

    @Option(name: .customLong("scenario"), help: "Run only these scenarios (repeatable); default: all six, in order.")
    var scenarios: [Scenario] = []

    @Option(
        name: .customLong("state-dir"),
        help:
            "The courier app's session and its server's accounts (default $XDG_STATE_HOME/passkeydemo, else ~/.local/state/passkeydemo)."
    )
    var stateDirectory: String?

    @Flag(help: "The courier app's server cannot be reached (as when offline).")
    var offline = false

    @Flag(help: "Serve the seed apps as web pages on 127.0.0.1 instead (the browser is the platform).")
    var web = false

    @Option(help: "The web pages' port on 127.0.0.1 (with --web).")
    var port: Int = 8380

    func validate() throws {
        guard (1...65535).contains(port) else { throw ValidationError("--port must be 1 to 65535, not \(port).") }
        guard !web || scenarios.isEmpty else {
            throw ValidationError("--web serves every scenario; --scenario is for the terminal.")
        }
        guard !web || !inProcess else {
            throw ValidationError("--web leaves the authenticator to the browser; --in-process is for the terminal.")
        }
    }

    /// The feature list for a person, the narrated scenarios for scripts and `make test`.
    private var interactive: Bool {
        scenarios.isEmpty && isatty(STDIN_FILENO) == 1 && isatty(STDOUT_FILENO) == 1
    }

    func run() async throws {
        // The scenarios narrate on stdout; library logs go to stderr, warnings only.
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = .warning
            return handler
        }
        if web {
            // The browser talks to the authenticator; this process is only the sites' server.
            try await WebServer(port: port, stateDirectory: try stateFolder(), offline: offline).run()
            return
        }
        let transport: any CTAPTransport
        let socketPath = socket ?? PasskeydSocket.defaultPath()
        if inProcess {
            transport = InProcessTransport(
                device: Authenticator(
                    store: InMemoryCredentialStore(), presence: ScriptedPresence.always(.approved),
                    verifier: ScriptedVerifier.always(.verified)))
        } else {
            transport = UnixSocketTransport(path: socketPath)
        }
        let demo = Demo(transport: transport)
        if interactive {
            try await runInteractive(demo, answeringPresenceOn: inProcess ? nil : socketPath)
            return
        }
        let scenarios = scenarios.isEmpty ? Scenario.allCases : scenarios
        var failed = 0
        for scenario in scenarios {
            print("\n== \(scenario.title)")
            do {
                try await demo.run(scenario)
            } catch {
                failed += 1
                print("✗ \(scenario.rawValue): \(error)")
            }
        }
        print(
            failed == 0
                ? "\nall \(scenarios.count) scenarios passed" : "\n\(failed) of \(scenarios.count) scenarios failed")
        if failed > 0 { throw ExitCode(1) }
    }

    /// The courier's state folder (mode 700), made if missing; refused unless it is ours alone.
    private func stateFolder() throws -> String {
        let environment = ProcessInfo.processInfo.environment
        let state =
            stateDirectory
            ?? ((environment["XDG_STATE_HOME"].flatMap { $0.isEmpty ? nil : $0 }
                ?? (environment["HOME"] ?? NSHomeDirectory()) + "/.local/state") + "/passkeydemo")
        try FileManager.default.createDirectory(
            atPath: state, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        // The courier's session token and database go in there: a folder someone else owns, or
        // can write to, could hand them a planted file or a link (issue 33, finding 2).
        var info = stat()
        guard lstat(state, &info) == 0, info.st_mode & S_IFMT == S_IFDIR, info.st_uid == geteuid(),
            info.st_mode & 0o022 == 0
        else {
            throw ValidationError(
                "The state folder \(state) is not a folder of yours that only you can write to; choose another with --state-dir."
            )
        }
        return state
    }

    private func runInteractive(_ demo: Demo, answeringPresenceOn socketPath: String?) async throws {
        let state = try stateFolder()
        let keyboard = Keyboard.start()
        defer { keyboard.restore() }
        let console = Console(keyboard: keyboard)
        // The touch, approved with Enter: PRESENCE on a second connection, as `passkeyctl approve`
        // sends it, naming the prompt STATUS shows, so it never approves another request.
        let answer: @Sendable (Bool) async -> Void = { approve in
            guard let socketPath else { return }
            let line = UnixSocketTransport(path: socketPath)
            if let status = try? DaemonStatus(bytes: try await line.vendor(.status, payload: [])),
                let id = status.promptID
            {
                _ = try? await line.vendor(
                    .presence, payload: VendorCommand.presencePayload(approve: approve, promptID: id))
            }
            await line.close()
        }
        let transport = demo.transport
        let courier = Courier(
            server: CourierServer(databasePath: state + "/courier-server.json", reachable: !offline),
            sessionFile: CourierSessionFile(path: state + "/courier-session.json"),
            log: CourierLog(path: state + "/courier.log"),
            console: console,
            client: { origin in
                let agent = TerminalUserAgent(console: console, answerPresence: answer)
                return (try WebAuthnClient(transport: transport, origin: origin, userAgent: agent), agent)
            })
        await InteractiveDemo(demo: demo, console: console, courier: courier, answerPresence: answer).run()
        console.say("Bye.")
    }
}

/// The six scenarios of design.md, in the order a newcomer meets them.
enum Scenario: String, CaseIterable, ExpressibleByArgument {
    case registration
    case passkeyOnly = "passkey-only"
    case passkeyOrPassword = "passkey-or-password"
    case autofill
    case immediate
    case autofillHybrid = "autofill-hybrid"

    var title: String {
        switch self {
        case .registration: return "Registration: create with a resident key; excludeCredentials honoured"
        case .passkeyOnly: return "Passkey-only sign-in: modal, discoverable, account picker"
        case .passkeyOrPassword: return "Passkey or password: one picker offers both"
        case .autofill: return "AutoFill passkey-only: conditional request, suggestions, pick"
        case .immediate: return "Immediate credentials: fail at once when nothing is local"
        case .autofillHybrid: return "AutoFill hybrid: the backup button cancels AutoFill before the modal"
        }
    }
}
