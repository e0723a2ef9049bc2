import Authenticator
import CTAP
import Testing
import WebAuthn

@testable import PasskeyClient

/// The Signal API (WebAuthn L3 §5.1.10) reaches the authenticator's stored credentials.
@Suite struct SignalTests {
    @Test func unknownCredentialIsDeletedAndOthersStay() async throws {
        let h = try ClientHarness()
        let alice = try await h.register("alice")
        _ = try await h.register("bob")
        try await h.client.signalUnknownCredential(rpId: "example.com", credentialId: Base64URL.encode(alice.id))
        let left = await h.store.allCredentials()
        #expect(left.map(\.user.name) == ["bob"])
    }

    @Test func allAcceptedCredentialsRemovesTheUsersOthers() async throws {
        let h = try ClientHarness()
        let first = try await h.register("carol")
        _ = try await h.register("dave")
        try await h.client.signalAllAcceptedCredentials(
            rpId: "example.com", userId: Base64URL.encode(Array("dave".utf8)), allAcceptedCredentialIds: [])
        #expect(await h.store.allCredentials().map(\.id) == [first.id], "only dave's credentials went")
        try await h.client.signalAllAcceptedCredentials(
            rpId: "example.com", userId: Base64URL.encode(Array("carol".utf8)),
            allAcceptedCredentialIds: [Base64URL.encode(first.id)])
        #expect(await h.store.count() == 1, "an accepted credential stays")
    }

    @Test func currentUserDetailsRenameTheUsersCredentials() async throws {
        let h = try ClientHarness()
        _ = try await h.register("erin")
        try await h.client.signalCurrentUserDetails(
            rpId: "example.com", userId: Base64URL.encode(Array("erin".utf8)), name: "erin.new@example.com",
            displayName: "Erin New")
        let stored = try #require(await h.store.allCredentials().first)
        #expect(stored.user.name == "erin.new@example.com" && stored.user.displayName == "Erin New")
    }

    @Test func signalsForNothingAreSilent() async throws {
        let h = try ClientHarness()
        try await h.client.signalUnknownCredential(rpId: "example.com", credentialId: Base64URL.encode([1, 2, 3]))
        try await h.client.signalCurrentUserDetails(rpId: "example.com", userId: "AAAA", name: "x", displayName: "x")
    }

    @Test func malformedInputIsATypeErrorAndAForeignRPIsASecurityError() async throws {
        let h = try ClientHarness()
        await expectWebAuthnError(.type) {
            try await h.client.signalUnknownCredential(rpId: "example.com", credentialId: "not base64url!")
        }
        await expectWebAuthnError(.security) {
            try await h.client.signalUnknownCredential(rpId: "other.org", credentialId: "AAAA")
        }
    }

    @Test func capabilitiesReportTheSignals() async throws {
        let capabilities = try await ClientHarness().client.getClientCapabilities()
        #expect(capabilities["signalUnknownCredential"] == true)
        #expect(capabilities["signalAllAcceptedCredentials"] == true)
        #expect(capabilities["signalCurrentUserDetails"] == true)
    }
}
