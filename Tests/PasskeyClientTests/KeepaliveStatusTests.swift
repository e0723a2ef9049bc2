import CTAP
import RelyingParty
import Testing
import WebAuthn

@testable import PasskeyClient

/// A transport whose device reports a few keepalives, then fails the request.
struct KeepaliveBurstTransport: CTAPTransport {
    let statuses: [KeepaliveStatus]

    func send(_ message: [UInt8], keepalive: @escaping @Sendable (KeepaliveStatus) -> Void) async throws(TransportError)
        -> [UInt8]
    {
        for status in statuses { keepalive(status) }
        throw .disconnected
    }

    func replug() async throws(TransportError) { throw .unsupported }
}

/// A user agent whose screen takes a while to show the first status (a slow UI), and which
/// records each status once shown.
actor SlowFirstStatusAgent: UserAgent {
    private(set) var shown: [KeepaliveStatus] = []

    func show(_ status: KeepaliveStatus) async {
        if shown.isEmpty && status == .processing { try? await Task.sleep(for: .milliseconds(50)) }
        shown.append(status)
    }

    func chooseCredential(from choices: [CredentialChoice], rpID: String) async -> CredentialChoice? { nil }
    func offerSuggestions(_ choices: [CredentialChoice], rpID: String) async -> CredentialChoice? { nil }
    func enterPIN(retriesLeft: Int?) async -> String? { nil }
    func chooseNewPIN(minimumLength: Int) async -> String? { nil }
    func confirm(_ message: String) async -> Bool { false }
}

@Suite struct KeepaliveStatusTests {
    /// The user agent is shown the device's statuses one at a time, in the order they came:
    /// "touch your authenticator" never replaced by an older "processing" that took longer
    /// to show.
    @Test func statusesReachTheUserAgentInTheOrderTheDeviceSentThem() async throws {
        let burst: [KeepaliveStatus] = [.processing, .userPresenceNeeded, .processing, .userPresenceNeeded]
        let agent = SlowFirstStatusAgent()
        let client = try WebAuthnClient(
            transport: KeepaliveBurstTransport(statuses: burst), origin: "https://example.com", userAgent: agent)
        let rp = RelyingParty(id: "example.com", name: "Example", origins: ["https://example.com"])
        _ = await webAuthnError { try await client.get(await rp.authenticationOptions()) }
        // The statuses are shown in tasks of their own: up to 60 s on a loaded machine.
        let deadline = ContinuousClock.now + .seconds(60)
        while await agent.shown.count < burst.count, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(5))
        }
        #expect(await agent.shown == burst)
    }
}
