import CTAP
import Testing
import WebAuthn

@testable import RelyingParty

@Suite struct CeremonyTests {
    let user = PublicKeyCredentialUserEntityJSON(id: Array("user-1".utf8), name: "alice", displayName: "Alice")

    func relyingParty() -> RelyingParty {
        RelyingParty(id: "example.com", name: "Example", origins: ["https://example.com"])
    }

    @Test func issuesOptionsWithFreshChallenges() async {
        let rp = relyingParty()
        let registration = await rp.registrationOptions(user: user, userVerification: .required)
        let authentication = await rp.authenticationOptions()
        #expect(registration.challenge.count == 32)
        #expect(authentication.challenge.count == 32)
        #expect(registration.challenge != authentication.challenge)
        #expect(registration.rp == PublicKeyCredentialRpEntityJSON(id: "example.com", name: "Example"))
        #expect(registration.pubKeyCredParams.map(\.alg) == [-7, -8])
        #expect(registration.authenticatorSelection?.residentKey == .required)
        #expect(registration.authenticatorSelection?.userVerification == .required)
        #expect(authentication.rpId == "example.com")
        #expect(await rp.challenges.count == 2)
    }

    @Test(arguments: [
        TestAuthenticator.es256(), TestAuthenticator.ed25519(), TestAuthenticator.es384(), TestAuthenticator.es512(),
        TestAuthenticator.rsa(.rs256), TestAuthenticator.rsa(.ps256), TestAuthenticator.mldsa44(),
        TestAuthenticator.mldsa65(), TestAuthenticator.mldsa87(),
        TestAuthenticator.es256K()
    ])
    func registersThenSignsIn(authenticator: TestAuthenticator) async throws {
        let rp = RelyingParty(
            id: "example.com", name: "Example", origins: ["https://example.com"],
            algorithms: [.es256, .edDSA, .es384, .es512, .rs256, .ps256, .mldsa44, .mldsa65, .mldsa87, .es256K])
        let creation = await rp.registrationOptions(user: user)
        let credential = try await rp.finishRegistration(authenticator.registration(challenge: creation.challenge))
        #expect(credential.userHandle == user.id)

        let request = await rp.authenticationOptions(allowCredentials: [credential.descriptor])
        let result = try await rp.finishAuthentication(
            authenticator.assertion(challenge: request.challenge, signCount: 1)
        ) { id in
            id == credential.id ? credential : nil
        }
        #expect(result.credential.signCount == 1)
        #expect(result.userHandle == user.id)
        #expect(await rp.challenges.count == 0)
    }

    @Test func challengesAreSingleUse() async throws {
        let rp = relyingParty()
        let authenticator = TestAuthenticator.es256()
        let creation = await rp.registrationOptions(user: user)
        let response = authenticator.registration(challenge: creation.challenge)
        _ = try await rp.finishRegistration(response)
        await #expect(throws: VerificationError.unknownChallenge) { try await rp.finishRegistration(response) }
    }

    @Test func aFailedVerificationStillUsesTheChallenge() async {
        let rp = relyingParty()
        let authenticator = TestAuthenticator.es256()
        let creation = await rp.registrationOptions(user: user)
        await #expect(throws: VerificationError.userNotPresent) {
            try await rp.finishRegistration(authenticator.registration(challenge: creation.challenge, flags: []))
        }
        await #expect(throws: VerificationError.unknownChallenge) {
            try await rp.finishRegistration(authenticator.registration(challenge: creation.challenge))
        }
    }

    @Test func rejectsChallengesNeverIssuedOrIssuedForTheOtherCeremony() async {
        let rp = relyingParty()
        let authenticator = TestAuthenticator.es256()
        await #expect(throws: VerificationError.unknownChallenge) {
            try await rp.finishRegistration(authenticator.registration(challenge: Array(0..<32)))
        }
        let request = await rp.authenticationOptions()
        await #expect(throws: VerificationError.unknownChallenge) {
            try await rp.finishRegistration(authenticator.registration(challenge: request.challenge))
        }
    }

    @Test func remembersTheUserIdentifiedBeforeSignIn() async throws {
        let rp = relyingParty()
        let authenticator = TestAuthenticator.es256()
        let record = RegisteredCredential(
            id: authenticator.credentialID, publicKey: authenticator.publicKey, signCount: 0,
            userHandle: authenticator.userHandle)
        let request = await rp.authenticationOptions(user: Array("someone-else".utf8))
        await #expect(throws: VerificationError.credentialNotOwnedByUser) {
            try await rp.finishAuthentication(authenticator.assertion(challenge: request.challenge)) { _ in record }
        }
    }

    @Test func forgetsTheOldestChallengePastCapacity() async {
        let store = ChallengeStore(capacity: 2)
        await store.remember([1], for: .authentication(.init(challenge: [1]), user: nil))
        await store.remember([2], for: .authentication(.init(challenge: [2]), user: nil))
        await store.remember([3], for: .authentication(.init(challenge: [3]), user: nil))
        #expect(await store.take([1]) == nil)
        #expect(await store.take([2]) != nil)
        #expect(await store.take([3]) != nil)
        #expect(await store.take([3]) == nil)
    }

    @Test func evictionSkipsChallengesAlreadyTaken() async {
        let store = ChallengeStore(capacity: 2)
        await store.remember([1], for: .authentication(.init(challenge: [1]), user: nil))
        await store.remember([2], for: .authentication(.init(challenge: [2]), user: nil))
        #expect(await store.take([1]) != nil)
        await store.remember([3], for: .authentication(.init(challenge: [3]), user: nil))
        #expect(await store.count == 2, "room was made by the take, nothing evicted")
        await store.remember([4], for: .authentication(.init(challenge: [4]), user: nil))
        #expect(await store.take([2]) == nil, "the oldest still pending goes first")
        #expect(await store.take([3]) != nil)
        #expect(await store.take([4]) != nil)
    }

    /// Hardening F8: challenges answered promptly never trigger eviction, and must not pile up either.
    @Test func challengesTakenPromptlyAreNotKeptForever() async {
        let store = ChallengeStore(capacity: 4)
        for n in 0..<1_000 {
            let challenge = withUnsafeBytes(of: UInt32(n).bigEndian) { Array($0) }
            await store.remember(challenge, for: .authentication(.init(challenge: challenge), user: nil))
            #expect(await store.take(challenge) != nil)
        }
        #expect(await store.count == 0)
        let retained = await store.retained
        #expect(retained <= 2 * 4, "kept \(retained) entries for 1 000 answered challenges")
    }

    @Test func aChallengeIssuedAgainAfterItWasTakenKeepsItsNewPlace() async {
        let store = ChallengeStore(capacity: 2)
        await store.remember([1], for: .authentication(.init(challenge: [1]), user: nil))
        #expect(await store.take([1]) != nil)
        await store.remember([2], for: .authentication(.init(challenge: [2]), user: nil))
        await store.remember([1], for: .authentication(.init(challenge: [1]), user: nil))
        await store.remember([3], for: .authentication(.init(challenge: [3]), user: nil))
        #expect(await store.take([2]) == nil, "[2] is the oldest pending one")
        #expect(await store.take([1]) != nil)
        #expect(await store.take([3]) != nil)
    }

    @Test func aChallengeAnsweredAfterItsTimeoutIsRefused() async throws {
        let store = ChallengeStore()
        await store.remember([1], for: .authentication(.init(challenge: [1], timeout: 20), user: nil))
        // A day, not a minute: under a loaded `make test` this test once ran 70 s, and [2] expired too.
        await store.remember([2], for: .authentication(.init(challenge: [2], timeout: 86_400_000), user: nil))
        try await Task.sleep(for: .milliseconds(60))
        #expect(await store.take([1]) == nil, "20 ms were promised, 60 passed")
        #expect(await store.take([2]) != nil)
    }
}
