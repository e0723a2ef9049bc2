import CBOR
import CTAP
import Testing
import WebAuthn

@testable import RelyingParty

let exampleRP = RelyingParty(
    id: "example.com", name: "Example", origins: ["https://example.com"],
    topOrigins: ["https://embedder.example"])

func creationOptions(
    challenge: [UInt8] = Array(0..<32), userVerification: UserVerificationRequirement = .preferred,
    algorithms: [COSEAlgorithm] = [.es256, .edDSA]
) -> PublicKeyCredentialCreationOptionsJSON {
    PublicKeyCredentialCreationOptionsJSON(
        rp: .init(id: "example.com", name: "Example"),
        user: .init(id: Array("user-1".utf8), name: "alice", displayName: "Alice"),
        challenge: challenge,
        pubKeyCredParams: algorithms.map(PublicKeyCredentialParametersJSON.init),
        authenticatorSelection: .init(residentKey: .required, userVerification: userVerification))
}

@Suite struct RegistrationVerificationTests {
    let options = creationOptions()

    func verify(
        _ response: RegistrationResponseJSON, options: PublicKeyCredentialCreationOptionsJSON? = nil,
        requireUserVerification: Bool? = nil
    ) throws(VerificationError) -> RegisteredCredential {
        try exampleRP.verifyRegistration(
            response, options: options ?? self.options, requireUserVerification: requireUserVerification)
    }

    @Test(arguments: [TestAuthenticator.es256(), TestAuthenticator.ed25519()])
    func acceptsPackedSelfAttestation(authenticator: TestAuthenticator) throws {
        let response = authenticator.registration(
            challenge: options.challenge,
            flags: [.userPresent, .userVerified, .backupEligible, .backedUp], signCount: 3)
        let credential = try verify(response)
        #expect(credential.id == authenticator.credentialID)
        #expect(credential.publicKey == authenticator.publicKey)
        #expect(credential.signCount == 3)
        #expect(credential.userHandle == options.user.id)
        #expect(credential.transports == ["internal"])
        #expect(credential.backupEligible && credential.backedUp)
        #expect(credential.attestationFormat == "packed")
    }

    @Test func acceptsNoneAttestation() throws {
        let authenticator = TestAuthenticator.ed25519()
        let credential = try verify(
            authenticator.registration(challenge: options.challenge, flags: [.userPresent], attestation: .none))
        #expect(credential.attestationFormat == "none")
        #expect(!credential.backupEligible && !credential.backedUp)
    }

    @Test func rejectsWrongChallenge() {
        let response = TestAuthenticator.es256().registration(challenge: Array(1...32))
        #expect(throws: VerificationError.challengeMismatch) { try verify(response) }
    }

    @Test func rejectsWrongClientDataType() {
        let response = TestAuthenticator.es256().registration(challenge: options.challenge, type: .get)
        #expect(throws: VerificationError.clientDataTypeMismatch(expected: "webauthn.create", found: "webauthn.get")) {
            try verify(response)
        }
    }

    @Test func rejectsUnexpectedOrigin() {
        let response = TestAuthenticator.es256().registration(
            challenge: options.challenge, origin: "https://evil.example")
        #expect(throws: VerificationError.originMismatch("https://evil.example")) { try verify(response) }
    }

    @Test func topOriginMustBeExpected() throws {
        let authenticator = TestAuthenticator.es256()
        _ = try verify(authenticator.registration(challenge: options.challenge, topOrigin: "https://embedder.example"))
        let response = authenticator.registration(challenge: options.challenge, topOrigin: "https://framer.example")
        #expect(throws: VerificationError.topOriginNotAllowed("https://framer.example")) { try verify(response) }
    }

    /// WebAuthn L3 §7.1 step 10: crossOrigin true only when the RP expects an iframe ceremony,
    /// which it says by naming the top-level origins it may be framed under.
    @Test func crossOriginNeedsAnRPThatExpectsIframes() throws {
        let authenticator = TestAuthenticator.es256()
        let sameOriginOnly = RelyingParty(id: "example.com", name: "Example", origins: ["https://example.com"])
        let response = authenticator.registration(challenge: options.challenge, crossOrigin: true)
        #expect(throws: VerificationError.crossOriginNotAllowed) {
            try sameOriginOnly.verifyRegistration(response, options: options, requireUserVerification: nil)
        }
        _ = try verify(response)
        _ = try sameOriginOnly.verifyRegistration(
            authenticator.registration(challenge: options.challenge, crossOrigin: false),
            options: options, requireUserVerification: nil)
    }

    @Test func rejectsRPIDHashOfAnotherRP() {
        let response = TestAuthenticator.es256().registration(challenge: options.challenge, rpID: "evil.example")
        #expect(throws: VerificationError.rpIDHashMismatch) { try verify(response) }
    }

    @Test func rejectsMissingUserPresence() {
        let response = TestAuthenticator.es256().registration(challenge: options.challenge, flags: [.userVerified])
        #expect(throws: VerificationError.userNotPresent) { try verify(response) }
    }

    @Test func requiresUserVerificationWhenOptionsSayRequired() throws {
        let response = TestAuthenticator.es256().registration(challenge: options.challenge, flags: [.userPresent])
        _ = try verify(response)
        #expect(throws: VerificationError.userNotVerified) {
            try verify(response, options: creationOptions(userVerification: .required))
        }
        #expect(throws: VerificationError.userNotVerified) { try verify(response, requireUserVerification: true) }
    }

    @Test func rejectsBackupStateWithoutEligibility() {
        let response = TestAuthenticator.es256().registration(
            challenge: options.challenge, flags: [.userPresent, .backedUp])
        #expect(throws: VerificationError.backupStateWithoutEligibility) { try verify(response) }
    }

    @Test func rejectsAlgorithmNotOffered() {
        let response = TestAuthenticator.ed25519().registration(challenge: options.challenge)
        #expect(throws: VerificationError.algorithmNotAllowed(-8)) {
            try verify(response, options: creationOptions(algorithms: [.es256]))
        }
    }

    @Test func rejectsUnknownAttestationFormat() {
        let response = TestAuthenticator.es256().registration(
            challenge: options.challenge, attestation: .custom(format: "tpm", statement: ["ver": "2.0"]))
        #expect(throws: VerificationError.unsupportedAttestationFormat("tpm")) { try verify(response) }
    }

    @Test func rejectsNoneAttestationWithAStatement() {
        let response = TestAuthenticator.es256().registration(
            challenge: options.challenge, attestation: .custom(format: "none", statement: ["sig": .byteString([1])]))
        #expect(throws: VerificationError.malformedAttestationStatement) { try verify(response) }
    }

    @Test func rejectsPackedAlgorithmMismatch() {
        let response = TestAuthenticator.es256().registration(
            challenge: options.challenge, attestation: .packedSelfWithAlgorithm(-8))
        #expect(throws: VerificationError.attestationAlgorithmMismatch(statement: -8, credential: -7)) {
            try verify(response)
        }
    }

    @Test(arguments: [TestAuthenticator.es256(), TestAuthenticator.ed25519()])
    func rejectsBadAttestationSignature(authenticator: TestAuthenticator) {
        let response = authenticator.registration(challenge: options.challenge, corruptSignature: true)
        #expect(throws: VerificationError.invalidAttestationSignature) { try verify(response) }
    }

    @Test func rejectsCertificateChainItCannotTrust() {
        let response = TestAuthenticator.es256().registration(
            challenge: options.challenge, attestation: .packedWithCertificate)
        #expect(throws: VerificationError.attestationTrustPathUnsupported) { try verify(response) }
    }

    @Test func rejectsIDThatIsNotRawID() {
        var response = TestAuthenticator.es256().registration(challenge: options.challenge)
        response.id = Base64URL.encode([9, 9, 9])
        #expect(throws: VerificationError.credentialIDMismatch) { try verify(response) }
        var swapped = TestAuthenticator.es256().registration(challenge: options.challenge)
        swapped.rawId = [9, 9, 9]
        swapped.id = Base64URL.encode(swapped.rawId)
        #expect(throws: VerificationError.credentialIDMismatch) { try verify(swapped) }
    }

    @Test func rejectsCredentialIDOver1023Bytes() {
        var authenticator = TestAuthenticator.es256()
        authenticator.credentialID = [UInt8](repeating: 7, count: 1024)
        #expect(throws: VerificationError.credentialIDTooLong) {
            try verify(authenticator.registration(challenge: options.challenge))
        }
    }

    @Test func rejectsMalformedAttestationObject() {
        var response = TestAuthenticator.es256().registration(challenge: options.challenge)
        response.response.attestationObject = (["fmt": "none"] as CBORValue).encoded
        #expect(throws: VerificationError.malformedAttestationObject) { try verify(response) }
    }
}
