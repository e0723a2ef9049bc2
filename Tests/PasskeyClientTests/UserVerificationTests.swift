import Authenticator
import CTAP
import RelyingParty
import Testing
import WebAuthn

@testable import PasskeyClient

/// PIN and built-in verification as the platform drives them (WebAuthn L3 §6.2.3, CTAP 2.1 §6.5).
@Suite struct UserVerificationTests {
    func requiredUV(_ h: ClientHarness, _ name: String) async -> PublicKeyCredentialCreationOptionsJSON {
        await h.rp.registrationOptions(user: ClientHarness.user(name), userVerification: .required)
    }

    @Test func pinVerifiesTheUserWhenTheDeviceHasNoBuiltInMethod() async throws {
        let h = try ClientHarness(verifier: nil, pins: ["1234", "1234"])
        try await h.setPIN("1234")
        let response = try await h.client.create(await requiredUV(h, "alice"))
        #expect(try AuthenticatorData(bytes: response.response.authenticatorData).flags.contains(.userVerified))
        await h.registered.put(try await h.rp.finishRegistration(response))
        let result = try await h.client.get(await h.rp.authenticationOptions(userVerification: .required))
        #expect(try await h.verify(result) == Array("alice".utf8))
        #expect(await h.userAgent.pinPrompts == [8, 8], "each ceremony asks once, showing the retries left")
    }

    @Test func aWrongPINIsAskedAgainWithOneTryFewer() async throws {
        let h = try ClientHarness(verifier: nil, pins: ["0000", "1234"])
        try await h.setPIN("1234")
        _ = try await h.rp.finishRegistration(try await h.client.create(await requiredUV(h, "bob")))
        #expect(await h.userAgent.pinPrompts == [8, 7])
    }

    @Test func cancelledPINEntryIsNotAllowed() async throws {
        let h = try ClientHarness(verifier: nil, pins: [nil])
        try await h.setPIN("1234")
        await expectWebAuthnError(.notAllowed) { try await h.client.create(await requiredUV(h, "carol")) }
        #expect(await h.store.count() == 0)
    }

    @Test func failedBuiltInVerificationFallsBackToThePIN() async throws {
        let h = try ClientHarness(verifier: .always(.failed), pins: ["1234"])
        try await h.setPIN("1234")
        let response = try await h.client.create(await requiredUV(h, "dan"))
        _ = try await h.rp.finishRegistration(response)
        #expect(await h.verifier?.requests.count == 1, "one fingerprint attempt, as getInfo suggests")
        #expect(await h.userAgent.pinPrompts.count == 1, "then the PIN")
    }

    @Test func failedBuiltInVerificationWithoutAPINIsNotAllowed() async throws {
        let h = try ClientHarness(verifier: .always(.failed))
        let error = await webAuthnError { try await h.client.create(await requiredUV(h, "erin")) }
        #expect(error?.name == .notAllowed)
        #expect(error?.cause == .ctap(.uvInvalid))
    }

    @Test func requiredUVOnAPINCapableDeviceWithoutAPINOffersToSetOne() async throws {
        let h = try ClientHarness(verifier: nil, newPIN: "246810")
        let response = try await h.client.create(await requiredUV(h, "frank"))
        _ = try await h.rp.finishRegistration(response)
        let session = CTAP2Session(transport: InProcessTransport(device: h.authenticator))
        #expect(try await session.getInfo().options["clientPin"] == true, "the new PIN is on the device")
    }
}
