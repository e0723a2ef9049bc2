import Foundation
import PasskeyClient
import WebAuthn

/// `passkeydemo` on a terminal: the seed apps' feature list, each flow run against the
/// authenticator with the person answering (account pickers, PIN, the touch), a success
/// screen with the signed-in account, and sign-out back to the list.
struct InteractiveDemo: Sendable {
    let demo: Demo
    let console: Console
    let courier: Courier
    /// Answers a pending presence prompt on a connection of its own (none for an in-process authenticator).
    let answerPresence: @Sendable (Bool) async -> Void

    func agent() -> TerminalUserAgent {
        TerminalUserAgent(console: console, answerPresence: answerPresence)
    }

    func run() async {
        await courier.restore()
        while true {
            let features = Feature.allCases
            guard
                let index = await console.choose(
                    ["passkeydemo — passkeys end to end against passkeyd", "Choose a feature:"],
                    items: features.map(\.title),
                    footer: "↑/↓ or a number, Enter to run, q to quit")
            else { return }
            await run(features[index])
        }
    }

    private func run(_ feature: Feature) async {
        switch feature {
        case .courierCreateAccount: await courier.createAccount()
        case .courierSignIn: await courier.signIn()
        case .scenario(let scenario):
            console.screen([scenario.title, ""])
            do {
                if let user = try await signIn(scenario) { await signedIn(user, on: demo.shop) }
            } catch {
                console.say("✗ \(error)")
                console.say("Enter to go back")
                _ = await console.confirm()
            }
        }
    }

    /// Runs a scenario with the person choosing; the account signed in, if the scenario signs one in.
    private func signIn(_ scenario: Scenario) async throws -> String? {
        let agent = agent()
        defer { Task { await agent.endTouchPrompt() } }
        let client = try demo.client(for: demo.shop, agent)
        switch scenario {
        case .registration:
            guard let name = await username() else { return nil }
            try await demo.shop.register(name, with: client, excludeExisting: true)
            return name
        case .passkeyOnly:
            return try await demo.shop.signIn(with: client)
        case .passkeyOrPassword:
            let options = await demo.shop.server.authenticationOptions()
            switch try await client.get(options, passwords: [Site.savedPassword]) {
            case .password(let password):
                try demo.shop.checkPassword(password)
                return password.user + " (with the saved password)"
            case .passkey(let assertion):
                return try await demo.shop.verify(assertion)
            }
        case .autofill:
            do {
                return try await demo.shop.signIn(with: client, mediation: .conditional)
            } catch {
                // Leaving the page aborts its conditional request: back to the list, nothing failed.
                if await agent.fieldOutcome == .left { return nil }
                throw error
            }
        case .immediate:
            do {
                return try await demo.shop.signIn(with: client, mediation: .immediate)
            } catch let error as WebAuthnError where error.name == .notAllowed {
                if await agent.pickersShown > 0 {
                    console.say(
                        "You closed the account picker: nothing was signed in, and the site shows its sign-in form.")
                } else {
                    console.say(
                        "No passkey for \(demo.shop.server.id) is right here: nothing was shown, and the site shows its sign-in form."
                    )
                }
                console.say("Enter to go back")
                _ = await console.confirm()
                return nil
            }
        case .autofillHybrid:
            // AutoFill waits in the username field, with the “Sign in with a passkey” button beside it.
            let button = "Sign in with a passkey"
            await agent.offerButton(button)
            let options = await demo.shop.server.authenticationOptions()
            let autofill = Task { try await client.get(options, mediation: .conditional) }
            switch await autofill.result {
            case .success(.passkey(let assertion)): return try await demo.shop.verify(assertion)
            case .success(.password): return nil
            case .failure(let error):
                switch await agent.fieldOutcome {
                case .button?: break
                case .left?: return nil
                default: throw error
                }
                // The conditional request is over (cancelled and awaited) before the modal one starts.
                autofill.cancel()
                let explained = "“\(button)”: AutoFill is cancelled and the modal request runs."
                console.say(explained)
                await agent.carry(explained)
                return try await demo.shop.signIn(with: client)
            }
        }
    }

    /// The username field of the registration screen; nil on Esc.
    private func username() async -> String? {
        while true {
            guard let typed = await console.readLine("Username: ") else { return nil }
            let name = typed.trimmingCharacters(in: .whitespaces)
            if !name.isEmpty { return name }
        }
    }

    /// The success screen, then sign-out back to the list.
    private func signedIn(_ user: String, on site: Site) async {
        console.screen([site.server.name, "", "✓ Signed in as \(user), verified by the server", "", "Enter: sign out"])
        _ = await console.confirm()
        console.screen([site.server.name, "", "Signed out of \(user).", "", "Enter to continue"])
        _ = await console.confirm()
    }
}
