import Authenticator
import CTAP
import RelyingParty
import Testing
import WebAuthn

@testable import PasskeyClient

@Suite struct AuthenticationTests {
    @Test(arguments: [COSEAlgorithm.es256, .edDSA, .es384, .es512])
    func modalDiscoverableSignInWithOneAccountNeedsNoPicker(algorithm: COSEAlgorithm) async throws {
        let h = try ClientHarness()
        try await h.register("alice", algorithm: algorithm)
        let result = try await h.client.get(await h.rp.authenticationOptions())
        #expect(try await h.verify(result) == Array("alice".utf8))
        #expect(await h.userAgent.pickersShown.isEmpty)
    }

    @Test func modalWithSeveralAccountsShowsThePickerWithNames() async throws {
        let h = try ClientHarness(picks: [.label("bob")])
        for name in ["alice", "bob", "carol"] { try await h.register(name) }
        let result = try await h.client.get(await h.rp.authenticationOptions())
        #expect(try await h.verify(result) == Array("bob".utf8))
        let picker = try #require(await h.userAgent.pickersShown.first)
        #expect(picker.map(\.label) == ["carol", "bob", "alice"], "newest first, names after UV")
    }

    @Test func dismissingThePickerIsNotAllowed() async throws {
        let h = try ClientHarness(picks: [.dismiss])
        for name in ["alice", "bob"] { try await h.register(name) }
        await expectWebAuthnError(.notAllowed) { try await h.client.get(await h.rp.authenticationOptions()) }
    }

    @Test func allowCredentialsSignsWithTheNamedCredential() async throws {
        let h = try ClientHarness()
        try await h.register("alice")
        let bob = try await h.register("bob")
        let result = try await h.client.get(await h.rp.authenticationOptions(allowCredentials: [bob.descriptor]))
        #expect(try await h.verify(result) == Array("bob".utf8))
    }

    @Test func unknownPasskeyIsNotAllowedWithAMessage() async throws {
        let h = try ClientHarness()
        let error = await webAuthnError { try await h.client.get(await h.rp.authenticationOptions()) }
        #expect(error?.name == .notAllowed)
        #expect(error?.cause == .ctap(.noCredentials))
        #expect(error?.message.hasPrefix("Passkey not recognized") == true)
    }

    @Test func immediateFailsAtOnceWithoutInvolvingAnyone() async throws {
        let h = try ClientHarness()
        await expectWebAuthnError(.notAllowed) {
            try await h.client.get(await h.rp.authenticationOptions(), mediation: .immediate)
        }
        #expect(await h.presence.requests.isEmpty)
        #expect(await h.verifier?.requests.isEmpty == true)
        #expect(await h.userAgent.pickersShown.isEmpty)
    }

    @Test func immediateWithALocalPasskeyBehavesAsModal() async throws {
        let h = try ClientHarness()
        try await h.register("alice")
        let result = try await h.client.get(await h.rp.authenticationOptions(), mediation: .immediate)
        #expect(try await h.verify(result) == Array("alice".utf8))
    }

    @Test func immediateWithOnlyAPasswordOffersIt() async throws {
        let h = try ClientHarness()
        let saved = PasswordCredential(user: "alice", password: "hunter2")
        let result = try await h.client.get(
            await h.rp.authenticationOptions(), mediation: .immediate, passwords: [saved])
        #expect(result == .password(saved))
    }

    @Test func conditionalListsSuggestionsSilentlyAndCompletesOnPick() async throws {
        let h = try ClientHarness(picks: [.label("alice")])
        for name in ["alice", "bob"] { try await h.register(name) }
        let touchesBefore = await h.presence.requests.count
        let verificationsBefore = await h.verifier?.requests.count ?? 0
        let result = try await h.client.get(await h.rp.authenticationOptions(), mediation: .conditional)
        #expect(try await h.verify(result) == Array("alice".utf8))
        #expect(await h.userAgent.suggestionsShown.first?.map(\.label) == ["bob", "alice"])
        #expect(await h.presence.requests.count == touchesBefore, "built-in UV gave presence for the pick")
        #expect(await h.verifier?.requests.count == verificationsBefore + 2, "one silent discovery, one real assertion")
    }

    @Test func cancelledConditionalRequestEndsCleanlyAndTheNextSucceeds() async throws {
        let h = try ClientHarness(picks: [.wait, .first])
        try await h.register("alice")
        let options = await h.rp.authenticationOptions()
        let client = h.client
        let conditional = Task { try await client.get(options, mediation: .conditional) }
        while await h.userAgent.suggestionsShown.isEmpty { try await Task.sleep(for: .milliseconds(2)) }
        conditional.cancel()
        let error = await webAuthnError { try await conditional.value }
        #expect(error?.name == .abort)
        let result = try await h.client.get(await h.rp.authenticationOptions())
        #expect(try await h.verify(result) == Array("alice".utf8))
    }

    @Test func passkeyOrPasswordReturnsAChosenPasswordAsAPassword() async throws {
        let h = try ClientHarness(picks: [.label("alice@example.com")])
        try await h.register("alice")
        let saved = PasswordCredential(user: "alice@example.com", password: "correct horse")
        let result = try await h.client.get(await h.rp.authenticationOptions(), passwords: [saved])
        #expect(result == .password(saved))
        #expect(await h.userAgent.pickersShown.first?.map(\.label) == ["alice", "alice@example.com"])
    }

    @Test func passkeyOrPasswordSignsWithAChosenPasskey() async throws {
        let h = try ClientHarness(picks: [.label("alice")])
        try await h.register("alice")
        let saved = PasswordCredential(user: "alice@example.com", password: "correct horse")
        let result = try await h.client.get(await h.rp.authenticationOptions(), passwords: [saved])
        #expect(try await h.verify(result) == Array("alice".utf8))
    }

    @Test func timeoutIsNotAllowedAndCancelsTheDeviceWait() async throws {
        let h = try ClientHarness(presence: [.approved], verifier: nil)
        try await h.register("alice")
        var options = await h.rp.authenticationOptions(userVerification: .discouraged)
        options.timeout = 150
        let slow = Authenticator(store: h.store, presence: NeverPresent())
        let client = try WebAuthnClient(
            transport: InProcessTransport(device: slow), origin: "https://example.com", userAgent: h.userAgent)
        await expectWebAuthnError(.notAllowed) { try await client.get(options) }
    }

    @Test func originMustBeASecureContext() async throws {
        await expectWebAuthnError(.security) {
            try WebAuthnClient(
                transport: InProcessTransport(device: ClientHarness().authenticator), origin: "http://example.com",
                userAgent: ScriptedUserAgent())
        }
    }

    @Test func unreachableAuthenticatorSaysSo() async throws {
        let h = try ClientHarness(transport: UnreachableTransport())
        let error = await webAuthnError { try await h.client.get(await h.rp.authenticationOptions()) }
        #expect(error?.name == .notAllowed)
        // A page reads the message: no socket path in it (issue 40 item 7); the detail has it.
        #expect(error?.message == WebAuthnClient.unavailable)
        #expect(error?.message.contains("/nowhere.sock") == false)
        #expect(
            error?.detail == "Unable to reach the authenticator at /nowhere.sock: nothing accepts connections there.")
        #expect(error?.cause == .transport(.unreachable("/nowhere.sock")))
    }
}

/// A person who never touches: presence waits until the request is cancelled.
struct NeverPresent: UserPresence {
    func confirmPresence(_ request: UserActionRequest) async -> PresenceOutcome {
        while !Task.isCancelled { try? await Task.sleep(for: .milliseconds(5)) }
        return .cancelled
    }
}

/// A transport with no daemon behind it.
struct UnreachableTransport: CTAPTransport {
    func send(_ message: [UInt8], keepalive: @escaping @Sendable (KeepaliveStatus) -> Void) async throws(TransportError)
        -> [UInt8]
    {
        throw .unreachable("/nowhere.sock")
    }

    func replug() async throws(TransportError) { throw .unreachable("/nowhere.sock") }
}
