import Authenticator
import CTAP
import RelyingParty
import Testing
import WebAuthn

@testable import PasskeyClient

/// The largeBlob extension (WebAuthn L3 §10.1.5) end to end over largeBlobKey and
/// authenticatorLargeBlobs, against an authenticator with built-in UV (writes need `lbw`).
@Suite struct LargeBlobTests {
    let blob = Array(String(repeating: "certificate bytes ", count: 50).utf8)

    func register(
        _ h: ClientHarness, _ name: String, support: String = "required",
        residentKey: ResidentKeyRequirement = .required
    ) async throws -> (RegisteredCredential, Bool?) {
        var options = await h.rp.registrationOptions(user: ClientHarness.user(name), residentKey: residentKey)
        options.extensions = AuthenticationExtensionsClientInputsJSON(largeBlob: .init(support: support))
        let response = try await h.client.create(options)
        let credential = try await h.rp.finishRegistration(response)
        await h.registered.put(credential)
        return (credential, response.clientExtensionResults.largeBlob?.supported)
    }

    func signIn(
        _ h: ClientHarness, _ largeBlob: AuthenticationExtensionsLargeBlobInputsJSON,
        allow: [RegisteredCredential]
    ) async throws -> AuthenticationExtensionsLargeBlobOutputsJSON? {
        var options = await h.rp.authenticationOptions(allowCredentials: allow.map(\.descriptor))
        options.extensions = AuthenticationExtensionsClientInputsJSON(largeBlob: largeBlob)
        let result = try await h.client.get(options)
        _ = try await h.verify(result)
        guard case .passkey(let response) = result else { return nil }
        return response.clientExtensionResults.largeBlob
    }

    @Test func aWrittenBlobIsReadBackByItsCredentialOnly() async throws {
        let h = try ClientHarness()
        let (alice, supported) = try await register(h, "alice")
        #expect(supported == true)
        let (bob, _) = try await register(h, "bob")
        #expect(try await signIn(h, .init(read: true), allow: [alice])?.blob == nil, "nothing stored yet")
        #expect(try await signIn(h, .init(write: blob), allow: [alice])?.written == true)
        #expect(try await signIn(h, .init(read: true), allow: [alice])?.blob == blob)
        #expect(
            try await signIn(h, .init(read: true), allow: [bob])?.blob == nil, "another credential's key opens nothing")
        #expect(try await signIn(h, .init(write: Array("v2".utf8)), allow: [alice])?.written == true)
        #expect(try await signIn(h, .init(read: true), allow: [alice])?.blob == Array("v2".utf8), "a write replaces")
    }

    @Test func aDiscoverableSignInReadsTheChosenAccountsBlob() async throws {
        let h = try ClientHarness()
        let (alice, _) = try await register(h, "alice")
        _ = try await signIn(h, .init(write: blob), allow: [alice])
        #expect(try await signIn(h, .init(read: true), allow: [])?.blob == blob)
    }

    @Test func aNonDiscoverableCredentialHasNoLargeBlob() async throws {
        let h = try ClientHarness()
        let (_, preferred) = try await register(h, "carol", support: "preferred", residentKey: .discouraged)
        #expect(preferred == false)
        await expectWebAuthnError(.notSupported) { try await register(h, "dave", residentKey: .discouraged) }
    }

    @Test func inputsInTheWrongCeremonyOrTogetherAreNotSupported() async throws {
        let h = try ClientHarness()
        let (alice, _) = try await register(h, "alice")
        var creation = await h.rp.registrationOptions(user: ClientHarness.user("erin"))
        creation.extensions = AuthenticationExtensionsClientInputsJSON(largeBlob: .init(read: true))
        await expectWebAuthnError(.notSupported) { try await h.client.create(creation) }
        for inputs in [
            AuthenticationExtensionsLargeBlobInputsJSON(support: "required"),
            AuthenticationExtensionsLargeBlobInputsJSON(read: true, write: blob)
        ] {
            await expectWebAuthnError(.notSupported) { try await signIn(h, inputs, allow: [alice]) }
        }
        // A write names its one credential.
        await expectWebAuthnError(.notSupported) { try await signIn(h, .init(write: blob), allow: []) }
    }
}
