import CTAP
import Testing
import WebAuthn

@testable import RelyingParty

@Suite struct AuthenticationVerificationTests {
    let options = PublicKeyCredentialRequestOptionsJSON(challenge: Array(32..<64), rpId: "example.com")

    static func record(_ authenticator: TestAuthenticator, signCount: UInt32 = 0, backupEligible: Bool = false)
        -> RegisteredCredential
    {
        RegisteredCredential(
            id: authenticator.credentialID, publicKey: authenticator.publicKey, signCount: signCount,
            userHandle: authenticator.userHandle, backupEligible: backupEligible)
    }

    func verify(
        _ response: AuthenticationResponseJSON, _ record: RegisteredCredential?,
        options: PublicKeyCredentialRequestOptionsJSON? = nil, user: [UInt8]? = nil,
        requireUserVerification: Bool? = nil
    ) throws(VerificationError) -> VerifiedAuthentication {
        try exampleRP.verifyAuthentication(
            response, options: options ?? self.options, user: user,
            requireUserVerification: requireUserVerification,
            credential: { id in record?.id == id ? record : nil })
    }

    @Test(arguments: [TestAuthenticator.es256(), TestAuthenticator.ed25519()])
    func acceptsAValidAssertion(authenticator: TestAuthenticator) throws {
        let response = authenticator.assertion(
            challenge: options.challenge, flags: [.userPresent, .userVerified, .backupEligible, .backedUp],
            signCount: 5)
        let result = try verify(response, Self.record(authenticator, signCount: 4, backupEligible: true))
        #expect(result.userHandle == authenticator.userHandle)
        #expect(result.userVerified)
        #expect(result.credential.signCount == 5)
        #expect(result.credential.backedUp)
    }

    @Test func rejectsWrongChallenge() {
        let authenticator = TestAuthenticator.es256()
        #expect(throws: VerificationError.challengeMismatch) {
            try verify(authenticator.assertion(challenge: [1, 2, 3]), Self.record(authenticator))
        }
    }

    @Test func rejectsRegistrationClientData() {
        let authenticator = TestAuthenticator.es256()
        #expect(throws: VerificationError.clientDataTypeMismatch(expected: "webauthn.get", found: "webauthn.create")) {
            try verify(authenticator.assertion(challenge: options.challenge, type: .create), Self.record(authenticator))
        }
    }

    @Test func rejectsUnexpectedOrigin() {
        let authenticator = TestAuthenticator.es256()
        #expect(throws: VerificationError.originMismatch("http://example.com")) {
            try verify(
                authenticator.assertion(challenge: options.challenge, origin: "http://example.com"),
                Self.record(authenticator))
        }
    }

    @Test func rejectsRPIDHashOfAnotherRP() {
        let authenticator = TestAuthenticator.es256()
        #expect(throws: VerificationError.rpIDHashMismatch) {
            try verify(
                authenticator.assertion(challenge: options.challenge, rpID: "login.example.com"),
                Self.record(authenticator))
        }
    }

    @Test func rejectsMissingUserPresence() {
        let authenticator = TestAuthenticator.es256()
        #expect(throws: VerificationError.userNotPresent) {
            try verify(
                authenticator.assertion(challenge: options.challenge, flags: [.userVerified]),
                Self.record(authenticator))
        }
    }

    @Test func requiresUserVerificationWhenAsked() throws {
        let authenticator = TestAuthenticator.es256()
        let response = authenticator.assertion(challenge: options.challenge, flags: [.userPresent])
        _ = try verify(response, Self.record(authenticator))
        var required = options
        required.userVerification = .required
        #expect(throws: VerificationError.userNotVerified) {
            try verify(response, Self.record(authenticator), options: required)
        }
        #expect(throws: VerificationError.userNotVerified) {
            try verify(response, Self.record(authenticator), requireUserVerification: true)
        }
    }

    @Test(arguments: [TestAuthenticator.es256(), TestAuthenticator.ed25519()])
    func rejectsBadSignature(authenticator: TestAuthenticator) {
        #expect(throws: VerificationError.invalidSignature) {
            try verify(
                authenticator.assertion(challenge: options.challenge, corruptSignature: true),
                Self.record(authenticator))
        }
    }

    @Test func rejectsSignatureByAnotherKey() {
        let authenticator = TestAuthenticator.es256()
        var impostor = TestAuthenticator.es256()
        impostor.credentialID = authenticator.credentialID
        #expect(throws: VerificationError.invalidSignature) {
            try verify(impostor.assertion(challenge: options.challenge), Self.record(authenticator))
        }
    }

    @Test func signCounterMustIncreaseUnlessBothAreZero() throws {
        let authenticator = TestAuthenticator.es256()
        _ = try verify(
            authenticator.assertion(challenge: options.challenge, signCount: 0),
            Self.record(authenticator, signCount: 0))
        _ = try verify(
            authenticator.assertion(challenge: options.challenge, signCount: 11),
            Self.record(authenticator, signCount: 10))
        #expect(throws: VerificationError.signCountNotIncreased(stored: 10, received: 10)) {
            try verify(
                authenticator.assertion(challenge: options.challenge, signCount: 10),
                Self.record(authenticator, signCount: 10))
        }
        #expect(throws: VerificationError.signCountNotIncreased(stored: 10, received: 3)) {
            try verify(
                authenticator.assertion(challenge: options.challenge, signCount: 3),
                Self.record(authenticator, signCount: 10))
        }
        #expect(throws: VerificationError.signCountNotIncreased(stored: 10, received: 0)) {
            try verify(
                authenticator.assertion(challenge: options.challenge, signCount: 0),
                Self.record(authenticator, signCount: 10))
        }
    }

    @Test func rejectsUnknownCredential() {
        let authenticator = TestAuthenticator.es256()
        #expect(throws: VerificationError.unknownCredential) {
            try verify(authenticator.assertion(challenge: options.challenge), nil)
        }
    }

    @Test func rejectsCredentialNotInAllowCredentials() throws {
        let authenticator = TestAuthenticator.es256()
        var allowing = options
        allowing.allowCredentials = [.init(id: [1, 2, 3])]
        #expect(throws: VerificationError.credentialNotAllowed) {
            try verify(
                authenticator.assertion(challenge: options.challenge), Self.record(authenticator), options: allowing)
        }
        allowing.allowCredentials.append(.init(id: authenticator.credentialID))
        _ = try verify(
            authenticator.assertion(challenge: options.challenge), Self.record(authenticator), options: allowing)
    }

    @Test func userHandleMustBeTheCredentialOwners() throws {
        let authenticator = TestAuthenticator.es256()
        let record = Self.record(authenticator)
        #expect(throws: VerificationError.userHandleMismatch) {
            try verify(authenticator.assertion(challenge: options.challenge, userHandle: Array("user-2".utf8)), record)
        }
        #expect(throws: VerificationError.missingUserHandle) {
            try verify(authenticator.assertion(challenge: options.challenge, userHandle: .some(nil)), record)
        }
        // With the user identified beforehand, an absent handle is fine, another user's is not.
        _ = try verify(
            authenticator.assertion(challenge: options.challenge, userHandle: .some(nil)), record,
            user: authenticator.userHandle)
        #expect(throws: VerificationError.userHandleMismatch) {
            try verify(
                authenticator.assertion(challenge: options.challenge, userHandle: Array("user-2".utf8)), record,
                user: authenticator.userHandle)
        }
        #expect(throws: VerificationError.credentialNotOwnedByUser) {
            try verify(authenticator.assertion(challenge: options.challenge), record, user: Array("user-2".utf8))
        }
    }

    @Test func backupEligibilityCannotChange() {
        let authenticator = TestAuthenticator.es256()
        #expect(throws: VerificationError.backupEligibilityChanged) {
            try verify(
                authenticator.assertion(challenge: options.challenge, flags: [.userPresent, .backupEligible]),
                Self.record(authenticator))
        }
        #expect(throws: VerificationError.backupStateWithoutEligibility) {
            try verify(
                authenticator.assertion(challenge: options.challenge, flags: [.userPresent, .backedUp]),
                Self.record(authenticator))
        }
    }

    @Test func rejectsCredentialOfAnotherType() {
        let authenticator = TestAuthenticator.es256()
        var response = authenticator.assertion(challenge: options.challenge)
        response.type = "password"
        #expect(throws: VerificationError.unsupportedCredentialType("password")) {
            try verify(response, Self.record(authenticator))
        }
    }
}
