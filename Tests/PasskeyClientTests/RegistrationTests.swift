import Authenticator
import CTAP
import RelyingParty
import Testing
import WebAuthn

@testable import PasskeyClient

@Suite struct RegistrationTests {
    @Test(arguments: [COSEAlgorithm.es256, .edDSA, .es384, .es512])
    func registrationIsAcceptedByTheRelyingParty(algorithm: COSEAlgorithm) async throws {
        let h = try ClientHarness()
        let credential = try await h.register("alice", algorithm: algorithm)
        #expect(credential.publicKey.algorithm == algorithm)
        #expect(credential.userHandle == Array("alice".utf8))
        #expect(credential.attestationFormat == "none", "attestation none by default, as browsers do")
        #expect(await h.store.count() == 1, "residentKey required makes a discoverable credential")
    }

    @Test func directAttestationPassesPackedThrough() async throws {
        let h = try ClientHarness()
        var options = await h.rp.registrationOptions(user: ClientHarness.user("bob"), attestation: .direct)
        options.pubKeyCredParams = [PublicKeyCredentialParametersJSON(.es256)]
        let response = try await h.client.create(options)
        #expect(try await h.rp.finishRegistration(response).attestationFormat == "packed")
    }

    @Test func pubKeyCredParamsOrderIsRespected() async throws {
        let h = try ClientHarness()
        var options = await h.rp.registrationOptions(user: ClientHarness.user("carol"))
        // RS1 (-65535) is not offered.
        options.pubKeyCredParams = [
            PublicKeyCredentialParametersJSON(alg: -65535), PublicKeyCredentialParametersJSON(.edDSA),
            PublicKeyCredentialParametersJSON(.es256)
        ]
        let response = try await h.client.create(options)
        #expect(response.response.publicKeyAlgorithm == COSEAlgorithm.edDSA.rawValue)
    }

    @Test func excludedCredentialIsInvalidStateAfterPresence() async throws {
        let h = try ClientHarness(verifier: nil)
        let existing = try await h.register("alice")
        let options = await h.rp.registrationOptions(
            user: ClientHarness.user("alice"), excludeCredentials: [existing.descriptor])
        let asked = await h.presence.requests.count
        await expectWebAuthnError(.invalidState) { try await h.client.create(options) }
        #expect(await h.presence.requests.count == asked + 1)
    }

    @Test func credPropsReportsWhetherTheCredentialIsDiscoverable() async throws {
        let h = try ClientHarness()
        for (requirement, expected) in [(ResidentKeyRequirement.required, true), (.discouraged, false)] {
            var options = await h.rp.registrationOptions(user: ClientHarness.user("dan"), residentKey: requirement)
            options.extensions = AuthenticationExtensionsClientInputsJSON(credProps: true)
            let response = try await h.client.create(options)
            #expect(response.clientExtensionResults.credProps?.rk == expected)
        }
    }

    @Test func userVerificationRequiredWithoutAnyMethodIsAConstraintError() async throws {
        let h = try ClientHarness(verifier: nil)
        let options = await h.rp.registrationOptions(user: ClientHarness.user("erin"), userVerification: .required)
        await expectWebAuthnError(.constraint) { try await h.client.create(options) }
    }

    @Test func userVerificationRequiredUsesBuiltInUVAndSetsTheFlag() async throws {
        let h = try ClientHarness()
        let options = await h.rp.registrationOptions(user: ClientHarness.user("frank"), userVerification: .required)
        let response = try await h.client.create(options)
        let authData = try AuthenticatorData(bytes: response.response.authenticatorData)
        #expect(authData.flags.contains(.userVerified))
        _ = try await h.rp.finishRegistration(response)
    }

    @Test func rpIDOfAnotherSiteIsASecurityError() async throws {
        let h = try ClientHarness()
        var options = await h.rp.registrationOptions(user: ClientHarness.user("gina"))
        options.rp.id = "evil.example"
        await expectWebAuthnError(.security) { try await h.client.create(options) }
        options.rp.id = "com"
        await expectWebAuthnError(.security) { try await h.client.create(options) }
    }

    @Test func badUserIDIsATypeError() async throws {
        let h = try ClientHarness()
        var options = await h.rp.registrationOptions(user: ClientHarness.user("hal"))
        options.user.id = [UInt8](repeating: 1, count: 65)
        await expectWebAuthnError(.type) { try await h.client.create(options) }
    }

    @Test func unsupportedAlgorithmsAreNotSupported() async throws {
        let h = try ClientHarness()
        var options = await h.rp.registrationOptions(user: ClientHarness.user("ivy"))
        options.pubKeyCredParams = [PublicKeyCredentialParametersJSON(alg: -65535)]
        await expectWebAuthnError(.notSupported) { try await h.client.create(options) }
    }

    @Test func deniedPresenceIsNotAllowed() async throws {
        let h = try ClientHarness(presence: [.denied], verifier: nil)
        let options = await h.rp.registrationOptions(user: ClientHarness.user("jay"), userVerification: .discouraged)
        await expectWebAuthnError(.notAllowed) { try await h.client.create(options) }
    }

    @Test func capabilitiesAreTruthful() async throws {
        let capabilities = try await ClientHarness().client.getClientCapabilities()
        #expect(capabilities["conditionalGet"] == true)
        #expect(capabilities["conditionalCreate"] == false)
        #expect(capabilities["relatedOrigins"] == false)
        #expect(capabilities["extension:credProps"] == true)
    }
}

@Suite struct RegistrationConfirmationTests {
    @Test func declinedConfirmationCreatesNothing() async throws {
        let h = try ClientHarness()
        let agent = ScriptedUserAgent(confirms: false)
        let client = try WebAuthnClient(
            transport: InProcessTransport(device: h.authenticator), origin: "https://example.com", userAgent: agent)
        let options = await h.rp.registrationOptions(user: ClientHarness.user("zoe"))
        await expectWebAuthnError(.notAllowed) { try await client.create(options) }
        #expect(await agent.confirmations == ["Create a passkey for zoe on example.com?"])
        #expect(await h.store.count() == 0)
        #expect(await h.presence.requests.isEmpty, "the authenticator was never asked")
    }
}
