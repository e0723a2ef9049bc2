import Authenticator
import Logging
import RelyingParty
import Testing
import WebAuthn

@testable import PasskeyClient

/// authenticatorAttachment, getTransports() and the platform capabilities come from what the
/// authenticator reports of itself (getInfo `transports`, option `uv`), not from the client.
@Suite struct AttachmentTests {
    /// A client over an authenticator of `profile`, with or without built-in user verification.
    static func client(_ profile: DeviceProfile, verifies: Bool = true) throws -> (WebAuthnClient, RelyingParty) {
        let authenticator = Authenticator(
            store: InMemoryCredentialStore(), presence: ScriptedPresence.always(.approved),
            verifier: verifies ? ScriptedVerifier.always(.verified) : nil,
            configuration: Authenticator.Configuration(profile: profile),
            logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }))
        let client = try WebAuthnClient(
            transport: InProcessTransport(device: authenticator), origin: "https://example.com",
            userAgent: ScriptedUserAgent())
        let rp = RelyingParty(id: "example.com", name: "Example", origins: ["https://example.com"])
        return (client, rp)
    }

    @Test func anInternalAuthenticatorIsAPlatformOneWithTheInternalTransport() async throws {
        let (client, rp) = try Self.client(.fido21.reached(over: "internal"))
        let created = try await client.create(await rp.registrationOptions(user: ClientHarness.user("pia")))
        #expect(created.authenticatorAttachment == .platform)
        #expect(created.response.transports == ["internal"])
        let result = try await client.get(await rp.authenticationOptions())
        guard case .passkey(let assertion) = result else { throw WebAuthnError.unknown("no passkey") }
        #expect(assertion.authenticatorAttachment == .platform)
        #expect(await client.isUserVerifyingPlatformAuthenticatorAvailable())
        let capabilities = await client.getClientCapabilities()
        #expect(capabilities["userVerifyingPlatformAuthenticator"] == true)
        #expect(capabilities["passkeyPlatformAuthenticator"] == true)
    }

    @Test(arguments: ["usb", "nfc"])
    func anyOtherIsCrossPlatformWithItsOwnTransports(transport: String) async throws {
        let (client, rp) = try Self.client(.fido21.reached(over: transport))
        let created = try await client.create(await rp.registrationOptions(user: ClientHarness.user("cal")))
        #expect(created.authenticatorAttachment == .crossPlatform)
        #expect(created.response.transports == [transport])
        let result = try await client.get(await rp.authenticationOptions())
        guard case .passkey(let assertion) = result else { throw WebAuthnError.unknown("no passkey") }
        #expect(assertion.authenticatorAttachment == .crossPlatform)
        #expect(await client.isUserVerifyingPlatformAuthenticatorAvailable() == false)
        #expect(await client.getClientCapabilities()["userVerifyingPlatformAuthenticator"] == false)
    }

    @Test func aPlatformAuthenticatorThatCannotVerifyIsNoUserVerifyingOne() async throws {
        let (client, _) = try Self.client(.fido21.reached(over: "internal"), verifies: false)
        #expect(await client.isUserVerifyingPlatformAuthenticatorAvailable() == false)
        #expect(await client.getClientCapabilities()["passkeyPlatformAuthenticator"] == false)
    }

    @Test func anUnreachableAuthenticatorHasNoPlatformCapability() async throws {
        let h = try ClientHarness(transport: UnreachableTransport())
        #expect(await h.client.getClientCapabilities()["userVerifyingPlatformAuthenticator"] == false)
    }
}
