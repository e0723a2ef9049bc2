import ArgumentParser
import Authenticator
import CTAP
import CTAPHID
import Foundation
import Logging
import PasskeyClient
import WebAuthn

/// `passkeydemo`: the six classic passkey sign-in scenarios, end to end — PasskeyClient in
/// the browser's role, passkeyd (or an in-process authenticator) as the authenticator, and a
/// relying party that really verifies. Each scenario prints what happened and why it passed.
@main
struct PasskeyDemo: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "passkeydemo",
        abstract: "Run the six passkey sign-in scenarios end to end against a verifying relying party.",
        discussion: "Scenarios: \(Scenario.allCases.map(\.rawValue).joined(separator: ", ")).")

    @Option(help: "The daemon's socket (default: $PASSKEYD_SOCKET, $XDG_RUNTIME_DIR/passkeyd/ctaphid.sock, /tmp/passkeyd-$UID/ctaphid.sock).")
    var socket: String?

    @Flag(help: "Use an authenticator inside this process instead of the daemon (nothing is stored).")
    var inProcess = false

    @Option(name: .customLong("scenario"), help: "Run only these scenarios (repeatable); default: all six, in order.")
    var scenarios: [Scenario] = Scenario.allCases

    func run() async throws {
        // The scenarios narrate on stdout; library logs go to stderr, warnings only.
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = .warning
            return handler
        }
        let transport: any CTAPTransport
        if inProcess {
            transport = InProcessTransport(device: Authenticator(
                store: InMemoryCredentialStore(), presence: ScriptedPresence.always(.approved),
                verifier: ScriptedVerifier.always(.verified)))
        } else {
            transport = UnixSocketTransport(path: socket ?? PasskeydSocket.defaultPath())
        }
        let demo = Demo(transport: transport)
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
        print(failed == 0 ? "\nall \(scenarios.count) scenarios passed" : "\n\(failed) of \(scenarios.count) scenarios failed")
        if failed > 0 { throw ExitCode(1) }
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
