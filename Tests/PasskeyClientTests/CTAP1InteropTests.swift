import Authenticator
import CBOR
import CTAP
import Crypto
import Logging
import RelyingParty
import Testing
import WebAuthn

@testable import PasskeyClient

/// WebAuthn over a U2F-only key (CTAP 2.1 §10): create() is U2F_REGISTER with a fido-u2f
/// attestation (WebAuthn L3 §8.6), get() is U2F_AUTHENTICATE over the allow list, and what U2F
/// cannot do is refused as Chromium refuses it.
@Suite struct CTAP1InteropTests {
    /// A client for https://example.com over an in-process authenticator with the `u2f` profile.
    struct U2FHarness {
        let presence: ScriptedPresence
        let userAgent = ScriptedUserAgent()
        let client: WebAuthnClient
        let rp = RelyingParty(id: "example.com", name: "Example", origins: ["https://example.com"])
        let registered = RegisteredCredentials()

        init(presence: [PresenceOutcome] = [.approved], profile: DeviceProfile = .u2f) throws {
            self.presence = ScriptedPresence(presence)
            let authenticator = Authenticator(
                store: InMemoryCredentialStore(), presence: self.presence, verifier: nil,
                configuration: Authenticator.Configuration(profile: profile),
                logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }))
            client = try WebAuthnClient(
                transport: InProcessTransport(device: authenticator), origin: "https://example.com",
                userAgent: userAgent)
        }

        func options(
            _ name: String, residentKey: ResidentKeyRequirement = .discouraged,
            userVerification: UserVerificationRequirement = .discouraged,
            attestation: AttestationConveyancePreference = .none, exclude: [PublicKeyCredentialDescriptorJSON] = []
        ) async -> PublicKeyCredentialCreationOptionsJSON {
            await rp.registrationOptions(
                user: ClientHarness.user(name), excludeCredentials: exclude, residentKey: residentKey,
                userVerification: userVerification, attestation: attestation)
        }

        @discardableResult
        func register(_ name: String) async throws -> RegisteredCredential {
            let credential = try await rp.finishRegistration(try await client.create(await options(name)))
            await registered.put(credential)
            return credential
        }

        func verify(_ result: GetResult) async throws -> VerifiedAuthentication {
            guard case .passkey(let response) = result else { throw WebAuthnError.unknown("not a passkey") }
            let registered = self.registered
            return try await rp.finishAuthentication(response, credential: { id in await registered.get(id) })
        }
    }

    @Test func theTransportSaysTheKeySpeaksCTAP1Only() async throws {
        let h = try U2FHarness()
        #expect(try await h.client.transport.protocols() == .ctap1)
    }

    @Test func createIsAU2FRegistrationWithAFidoU2FAttestation() async throws {
        let h = try U2FHarness()
        let options = await h.options("una", attestation: .direct)
        let response = try await h.client.create(options)
        #expect(response.authenticatorAttachment == .crossPlatform)
        #expect(response.response.transports == ["usb"])
        #expect(response.response.publicKeyAlgorithm == COSEAlgorithm.es256.rawValue)

        let object = try AttestationObject(cbor: try CBORDecoder.decode(response.response.attestationObject))
        guard case .fidoU2F(let sig, let x5c) = object.statement else {
            Issue.record("expected fido-u2f, got \(object.statement.format)")
            return
        }
        #expect(x5c == [U2FAttestationIdentity.batch.certificate])
        let authData = try AuthenticatorData(bytes: object.authenticatorData)
        let application = Array(SHA256.hash(data: Array("example.com".utf8)))
        #expect(authData.rpIDHash == application)
        #expect(authData.flags == [.userPresent, .attestedCredentialData])
        #expect(authData.signCount == 0)
        let attested = try #require(authData.attestedCredentialData)
        #expect(attested.aaguid == [UInt8](repeating: 0, count: 16))
        #expect(attested.credentialID == response.rawId)
        guard case .p256(let x, let y, .es256) = attested.publicKey else {
            Issue.record("expected an ES256 P-256 key")
            return
        }
        // WebAuthn L3 §8.6 verification: the certificate's key signed
        // 0x00 ‖ rpIdHash ‖ clientDataHash ‖ credentialId ‖ the public key as an uncompressed point.
        let clientDataHash = Array(SHA256.hash(data: response.response.clientDataJSON))
        let signed = [0x00] + application + clientDataHash + attested.credentialID + [0x04] + x + y
        let attestationKey = try P256.Signing.PrivateKey(rawRepresentation: U2FAttestationIdentity.batch.privateKey)
            .publicKey
        #expect(
            attestationKey.isValidSignature(try P256.Signing.ECDSASignature(derRepresentation: sig), for: signed))
    }

    @Test func attestationNoneReplacesTheStatementAndTheRelyingPartyAcceptsIt() async throws {
        let h = try U2FHarness()
        let credential = try await h.register("ned")
        #expect(credential.attestationFormat == "none")
        #expect(credential.publicKey.algorithm == .es256)
    }

    @Test func getSignsWithTheAllowedKeyHandleAndTheRelyingPartyVerifiesIt() async throws {
        // The first touch is still pending: the client asks again until the key answers.
        let h = try U2FHarness(presence: [.approved, .timedOut, .approved])
        let credential = try await h.register("gus")
        let stranger = PublicKeyCredentialDescriptorJSON(id: [UInt8](repeating: 7, count: 64))
        let result = try await h.client.get(
            // The RP names the user (a U2F assertion carries no user handle).
            await h.rp.authenticationOptions(
                allowCredentials: [stranger, credential.descriptor], user: credential.userHandle))
        guard case .passkey(let response) = result else { throw WebAuthnError.unknown("not a passkey") }
        #expect(response.rawId == credential.id)
        #expect(response.response.userHandle == nil, "U2F knows no user handle")
        #expect(response.authenticatorAttachment == .crossPlatform)
        let authData = try AuthenticatorData(bytes: response.response.authenticatorData)
        #expect(response.response.authenticatorData.count == 37)
        #expect(authData.flags == .userPresent)
        #expect(authData.signCount == 1)
        let verified = try await h.verify(result)
        #expect(verified.credential.signCount == 1)
        #expect(await h.presence.requests.count == 3, "registration, the pending touch, the touch that signed")
        #expect(await h.userAgent.confirmations.count == 2, "the person approved the registration and the sign-in")
    }

    @Test func aKeyHandleTheKeyDidNotMakeIsNotAllowedAfterATouch() async throws {
        let h = try U2FHarness()
        try await h.register("wes")
        let before = await h.presence.requests.count
        let stranger = PublicKeyCredentialDescriptorJSON(id: [UInt8](repeating: 9, count: 80))
        let error = await webAuthnError {
            try await h.client.get(await h.rp.authenticationOptions(allowCredentials: [stranger]))
        }
        #expect(error?.name == .notAllowed)
        #expect(error?.cause == .ctap(.noCredentials))
        #expect(await h.presence.requests.count == before + 1, "a touch, as Chromium asks for one, signs nothing")
    }

    @Test func anEmptyAllowListIsNotAllowed() async throws {
        let h = try U2FHarness()
        try await h.register("eve")
        let error = await webAuthnError { try await h.client.get(await h.rp.authenticationOptions()) }
        #expect(error?.name == .notAllowed)
        #expect(error?.cause == .ctap(.noCredentials))
    }

    @Test func anExcludedCredentialIsInvalidStateAfterATouch() async throws {
        let h = try U2FHarness()
        let existing = try await h.register("xia")
        let before = await h.presence.requests.count
        let options = await h.options(
            "xia", exclude: [PublicKeyCredentialDescriptorJSON(id: [1, 2, 3]), existing.descriptor])
        let error = await webAuthnError { try await h.client.create(options) }
        #expect(error?.name == .invalidState)
        #expect(await h.presence.requests.count == before + 1, "one touch before the refusal")
    }

    @Test func anExcludeListOfOtherKeysRegisters() async throws {
        let h = try U2FHarness()
        let options = await h.options("oli", exclude: [PublicKeyCredentialDescriptorJSON(id: [1, 2, 3])])
        _ = try await h.rp.finishRegistration(try await h.client.create(options))
    }

    @Test func aRequiredResidentKeyOrUserVerificationIsNotAllowedAndNothingIsAsked() async throws {
        let h = try U2FHarness()
        for options in [
            await h.options("rik", residentKey: .required), await h.options("uma", userVerification: .required)
        ] {
            let error = await webAuthnError { try await h.client.create(options) }
            #expect(error?.name == .notAllowed)
        }
        let credential = try await h.register("vic")
        let before = await h.presence.requests.count
        let error = await webAuthnError {
            try await h.client.get(
                await h.rp.authenticationOptions(allowCredentials: [credential.descriptor], userVerification: .required)
            )
        }
        #expect(error?.name == .notAllowed)
        #expect(await h.presence.requests.count == before, "no touch for a request the key cannot answer")
    }

    @Test func withoutES256ItIsNotSupported() async throws {
        let h = try U2FHarness()
        var options = await h.options("ed")
        options.pubKeyCredParams = [PublicKeyCredentialParametersJSON(.edDSA)]
        let error = await webAuthnError { try await h.client.create(options) }
        #expect(error?.name == .notSupported)
        #expect(await h.presence.requests.isEmpty)
    }

    @Test func aCTAP2KeyWithoutResidentKeysRefusesARequiredOneAsNotAllowed() async throws {
        var profile = DeviceProfile.fido21
        profile.residentKeys = false
        let h = try U2FHarness(profile: profile)
        let error = await webAuthnError { try await h.client.create(await h.options("ria", residentKey: .required)) }
        #expect(error?.name == .notAllowed, "Chromium finds no suitable authenticator: not ConstraintError")
    }
}
