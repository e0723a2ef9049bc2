import PasskeyClient
import RelyingParty
import WebAuthn

/// Why a scenario did not go the way it should.
struct ScenarioFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// One site (`shop.passkeyd.test`) with its server, and the client a person uses on it.
struct Demo: Sendable {
    let transport: any CTAPTransport
    let shop = Site(id: "shop.passkeyd.test", name: "Passkey Shop")
    /// A site this device has no passkey for, for the immediate scenario.
    let news = Site(id: "news.passkeyd.test", name: "Passkey News")

    func client(for site: Site, _ agent: any UserAgent) throws -> WebAuthnClient {
        try WebAuthnClient(transport: transport, origin: site.origin, userAgent: agent)
    }

    func run(_ scenario: Scenario) async throws {
        switch scenario {
        case .registration: try await registration()
        case .passkeyOnly: try await passkeyOnly()
        case .passkeyOrPassword: try await passkeyOrPassword()
        case .autofill: try await autofill()
        case .immediate: try await immediate()
        case .autofillHybrid: try await autofillHybrid()
        }
    }

    /// Alice and Bob register; a second passkey for Alice is refused by excludeCredentials.
    func registration() async throws {
        let client = try client(for: shop, ScriptedUserAgent())
        for name in ["alice", "bob"] {
            let credential = try await shop.register(name, with: client)
            print(
                "✓ \(name) registered a passkey (\(credential.publicKey.algorithm), credential \(Base64URL.encode(credential.id).prefix(10))…), verified by the server"
            )
        }
        do {
            _ = try await shop.register("alice", with: client, excludeExisting: true)
            throw ScenarioFailure("a second passkey for alice was created despite excludeCredentials")
        } catch let error as WebAuthnError where error.name == .invalidState {
            print("✓ a second passkey for alice is refused: \(error.name.rawValue)")
        }
    }

    /// A modal request with no allowCredentials: every account is gathered and the person picks.
    func passkeyOnly() async throws {
        try await shop.ensureAccounts(["alice", "bob"], transport: transport)
        let agent = ScriptedUserAgent(picks: [.label("bob")])
        let user = try await shop.signIn(with: client(for: shop, agent))
        let picker = await agent.pickersShown.first?.map(\.label) ?? []
        print("✓ the picker showed \(picker.joined(separator: ", ")); signed in as \(user), verified by the server")
    }

    /// The picker offers passkeys and saved passwords; a password is returned as a password.
    func passkeyOrPassword() async throws {
        try await shop.ensureAccounts(["alice"], transport: transport)
        let saved = Site.savedPassword
        let agent = ScriptedUserAgent(picks: [.label(saved.user), .label("alice")])
        let client = try client(for: shop, agent)
        let options = await shop.server.authenticationOptions()
        guard case .password(let password) = try await client.get(options, passwords: [saved]) else {
            throw ScenarioFailure("choosing the password did not return the password")
        }
        try shop.checkPassword(password)
        print("✓ carol chose her saved password; the server signed her in with it (no passkey error)")
        let user = try await shop.signIn(with: client, passwords: [saved])
        let picker = await agent.pickersShown.first?.map(\.label) ?? []
        print("✓ the same picker (\(picker.joined(separator: ", "))) signs \(user) in with a passkey")
    }

    /// A conditional request lists suggestions silently and completes when one is picked.
    func autofill() async throws {
        try await shop.ensureAccounts(["alice", "bob"], transport: transport)
        let agent = ScriptedUserAgent(picks: [.label("alice")])
        let user = try await shop.signIn(with: client(for: shop, agent), mediation: .conditional)
        let suggestions = await agent.suggestionsShown.first?.map(\.label) ?? []
        print(
            "✓ AutoFill suggested \(suggestions.joined(separator: ", ")) without a touch; picking \(user) signed in, verified by the server"
        )
    }

    /// preferImmediatelyAvailableCredentials: nothing local fails at once, with no UI.
    func immediate() async throws {
        let agent = ScriptedUserAgent()
        do {
            _ = try await news.signIn(with: client(for: news, agent), mediation: .immediate)
            throw ScenarioFailure("news.passkeyd.test has no passkey here, yet the immediate request succeeded")
        } catch let error as WebAuthnError where error.name == .notAllowed {
            let shown = await agent.pickersShown.count + agent.suggestionsShown.count
            guard shown == 0 else { throw ScenarioFailure("the immediate request showed UI") }
            print(
                "✓ no passkey for news.passkeyd.test: \(error.name.rawValue) at once, nothing shown — the site shows its sign-in form"
            )
        }
        try await shop.ensureAccounts(["alice"], transport: transport)
        let user = try await shop.signIn(
            with: client(for: shop, ScriptedUserAgent(picks: [.label("alice")])), mediation: .immediate)
        print("✓ on shop.passkeyd.test the same request signs \(user) in like a modal one")
    }

    /// AutoFill runs; the backup button cancels it, awaits the cleanup, then the modal request
    /// runs on a ready authenticator. An autofilled password goes straight to the server.
    func autofillHybrid() async throws {
        try await shop.ensureAccounts(["alice"], transport: transport)
        let agent = ScriptedUserAgent(picks: [.wait, .label("alice")])
        let client = try client(for: shop, agent)
        let options = await shop.server.authenticationOptions()
        let autofill = Task { try await client.get(options, mediation: .conditional) }
        while await agent.suggestionsShown.isEmpty { try await Task.sleep(for: .milliseconds(5)) }
        autofill.cancel()
        do {
            _ = try await autofill.value
            throw ScenarioFailure("the cancelled AutoFill request completed")
        } catch let error as WebAuthnError where error.name == .abort {
            print("✓ \"Sign in with a passkey\" cancelled AutoFill (\(error.name.rawValue)) and waited for the cleanup")
        }
        let user = try await shop.signIn(with: client)
        print("✓ the modal request that followed signed \(user) in, verified by the server")

        let saved = Site.savedPassword
        let filling = ScriptedUserAgent(picks: [.label(saved.user)])
        guard
            case .password(let password) = try await self.client(for: shop, filling).get(
                await shop.server.authenticationOptions(), mediation: .conditional, passwords: [saved])
        else {
            throw ScenarioFailure("the autofilled password did not come back as a password")
        }
        try shop.checkPassword(password)
        print("✓ an autofilled password went straight to the server")
    }
}
