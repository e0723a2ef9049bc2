import CBOR
import CTAP
import Crypto
import Testing

@testable import Authenticator

@Suite struct MakeCredentialTests {
    @Test(arguments: Authenticator.Configuration().algorithms)
    func packedSelfAttestationVerifiesWithTheAttestedKey(algorithm: COSEAlgorithm) async throws {
        let h = Harness()
        let response = try await h.makeCredential(Fixture.makeCredential(algs: [algorithm.rawValue]))
        let authData = try AuthenticatorData(bytes: response.attestation.authenticatorData)
        let attested = try #require(authData.attestedCredentialData)
        #expect(authData.rpIDHash == Array(SHA256.hash(data: Array("example.com".utf8))))
        #expect(authData.flags == [.userPresent, .attestedCredentialData])
        #expect(authData.signCount == 0)
        #expect(attested.aaguid == Authenticator.Configuration.passkeydAAGUID)
        #expect(attested.publicKey.algorithm == algorithm)
        guard case .packed(let alg, let sig, let x5c) = response.attestation.statement else {
            Issue.record("expected packed attestation")
            return
        }
        #expect(alg == algorithm.rawValue)
        #expect(x5c == nil, "self attestation carries no certificate")
        #expect(
            try verify(
                signature: sig, over: response.attestation.authenticatorData + Fixture.clientDataHash,
                with: attested.publicKey))
        #expect(
            try !verify(signature: sig, over: response.attestation.authenticatorData + [0], with: attested.publicKey))
    }

    @Test func firstSupportedAlgorithmInThePlatformsOrderWins() async throws {
        let h = Harness()
        // RS1 (-65535) is not offered.
        let response = try await h.makeCredential(Fixture.makeCredential(algs: [-65535, -8, -7]))
        let key = try #require(
            try AuthenticatorData(bytes: response.attestation.authenticatorData).attestedCredentialData
        ).publicKey
        #expect(key.algorithm == .edDSA)
    }

    @Test func unsupportedAlgorithmsOnlyIsRefused() async throws {
        let h = Harness()
        // RS512 (-259) and RS1 (-65535) are not offered.
        #expect(
            try await h.status(of: .makeCredential, Fixture.makeCredential(algs: [-259, -65535]).cbor)
                == .unsupportedAlgorithm)
    }

    @Test func attestationNoneWhenThePlatformPrefersIt() async throws {
        let h = Harness()
        var request = Fixture.makeCredential()
        request.attestationFormatsPreference = ["none", "packed"]
        let response = try await h.makeCredential(request)
        #expect(response.attestation.statement == .none)
    }

    @Test func residentCredentialForTheSameUserReplacesTheOldOne() async throws {
        let h = Harness()
        let first = try await h.makeCredential(Fixture.makeCredential(user: Fixture.user(1, name: "old")))
        let second = try await h.makeCredential(Fixture.makeCredential(user: Fixture.user(1, name: "new")))
        let stored = await h.store.credentials(rpID: "example.com")
        #expect(stored.count == 1)
        #expect(stored.first?.user.name == "new")
        let firstID = try #require(
            try AuthenticatorData(bytes: first.attestation.authenticatorData).attestedCredentialData
        ).credentialID
        let secondID = try #require(
            try AuthenticatorData(bytes: second.attestation.authenticatorData).attestedCredentialData
        ).credentialID
        #expect(stored.first?.id == secondID)
        #expect(firstID != secondID)
    }

    @Test(arguments: Authenticator.Configuration().algorithms)
    func nonResidentCredentialsOfEveryAlgorithmSignThroughTheirID(algorithm: COSEAlgorithm) async throws {
        let h = Harness()
        let response = try await h.makeCredential(Fixture.makeCredential(algs: [algorithm.rawValue], rk: false))
        let attested = try #require(
            try AuthenticatorData(bytes: response.attestation.authenticatorData).attestedCredentialData)
        let assertion = try await h.getAssertion(Fixture.getAssertion(allow: [attested.credentialID]))
        #expect(
            try verify(
                signature: assertion.signature, over: assertion.authenticatorData + Fixture.clientDataHash,
                with: attested.publicKey))
        var truncated = attested.credentialID
        truncated.removeLast()
        #expect(try await h.status(of: .getAssertion, Fixture.getAssertion(allow: [truncated]).cbor) == .noCredentials)
    }

    @Test func nonResidentCredentialsStoreNothing() async throws {
        let h = Harness()
        let response = try await h.makeCredential(Fixture.makeCredential(rk: false))
        #expect(await h.store.count() == 0)
        let id = try #require(
            try AuthenticatorData(bytes: response.attestation.authenticatorData).attestedCredentialData
        ).credentialID
        #expect(id.count == CredentialWrapping.idLength)
    }

    @Test func excludedCredentialAnswersAfterPresence() async throws {
        let h = Harness()
        let existing = try await h.makeCredential(Fixture.makeCredential(rk: false))
        let id = try #require(
            try AuthenticatorData(bytes: existing.attestation.authenticatorData).attestedCredentialData
        ).credentialID
        let before = await h.presence.requests.count
        let status = try await h.status(
            of: .makeCredential, Fixture.makeCredential(user: Fixture.user(2), exclude: [id]).cbor)
        #expect(status == .credentialExcluded)
        let requests = await h.presence.requests
        #expect(requests.count == before + 1)
        #expect(requests.last?.purpose == .credentialExcluded)
        #expect(await h.store.count() == 0, "nothing was created")
    }

    @Test func excludeListEntryOfAnotherRPDoesNotMatch() async throws {
        let h = Harness()
        let existing = try await h.makeCredential(Fixture.makeCredential(rk: true))
        let id = try #require(
            try AuthenticatorData(bytes: existing.attestation.authenticatorData).attestedCredentialData
        ).credentialID
        let other = Fixture.makeCredential(
            rp: PublicKeyCredentialRpEntity(id: "other.example"), exclude: [id, [1, 2, 3]])
        #expect(try await h.status(of: .makeCredential, other.cbor) == .success)
    }

    @Test func upFalseIsAnInvalidOption() async throws {
        #expect(
            try await Harness().status(of: .makeCredential, Fixture.makeCredential(up: false).cbor) == .invalidOption)
    }

    @Test func uvWithoutBuiltInVerificationIsAnInvalidOption() async throws {
        #expect(
            try await Harness().status(of: .makeCredential, Fixture.makeCredential(uv: true).cbor) == .invalidOption)
        let unconfigured = Harness(verifier: ScriptedVerifier([.verified], configured: false))
        #expect(
            try await unconfigured.status(of: .makeCredential, Fixture.makeCredential(uv: true).cbor) == .invalidOption)
    }

    @Test func builtInUVSetsTheUVFlagWithoutASeparateTouch() async throws {
        let h = Harness(verifier: .always(.verified))
        let response = try await h.makeCredential(Fixture.makeCredential(uv: true))
        let authData = try AuthenticatorData(bytes: response.attestation.authenticatorData)
        #expect(authData.flags.contains([.userPresent, .userVerified]))
        #expect(await h.presence.requests.isEmpty)
    }

    @Test func protectedDeviceRequiresUVForDiscoverableCredentials() async throws {
        let h = Harness(verifier: .always(.verified))
        #expect(try await h.status(of: .makeCredential, Fixture.makeCredential(rk: true).cbor) == .puatRequired)
        // makeCredUvNotRqd: a non-discoverable credential needs no UV.
        #expect(try await h.status(of: .makeCredential, Fixture.makeCredential(rk: false).cbor) == .success)
    }

    @Test func failedUVCountsDownThenBlocks() async throws {
        let h = Harness(verifier: .always(.failed))
        for _ in 1..<DeviceState.maxUVRetries {
            #expect(try await h.status(of: .makeCredential, Fixture.makeCredential(uv: true).cbor) == .uvInvalid)
        }
        #expect(try await h.status(of: .makeCredential, Fixture.makeCredential(uv: true).cbor) == .uvBlocked)
        #expect(try await h.status(of: .makeCredential, Fixture.makeCredential(uv: true).cbor) == .uvBlocked)
        #expect(try await h.authenticator.deviceState().uvRetries == 0)
    }

    @Test func presenceOutcomesMapToTheirStatuses() async throws {
        let cases: [(PresenceOutcome, CTAPStatus)] = [
            (.denied, .operationDenied), (.timedOut, .userActionTimeout), (.cancelled, .keepaliveCancel)
        ]
        for (outcome, expected) in cases {
            let h = Harness(presence: [outcome])
            #expect(try await h.status(of: .makeCredential, Fixture.makeCredential().cbor) == expected)
            #expect(await h.store.count() == 0)
        }
    }

    @Test func storeFullRefusesNewDiscoverableCredentialsButAllowsReplacement() async throws {
        let h = Harness(capacity: 1)
        #expect(try await h.status(of: .makeCredential, Fixture.makeCredential(user: Fixture.user(1)).cbor) == .success)
        #expect(
            try await h.status(of: .makeCredential, Fixture.makeCredential(user: Fixture.user(2)).cbor) == .keyStoreFull
        )
        #expect(try await h.status(of: .makeCredential, Fixture.makeCredential(user: Fixture.user(1)).cbor) == .success)
    }

    @Test func credProtectIsStoredAndReported() async throws {
        let h = Harness()
        let response = try await h.makeCredential(Fixture.makeCredential(extensions: ["credProtect": 2]))
        let authData = try AuthenticatorData(bytes: response.attestation.authenticatorData)
        #expect(authData.flags.contains(.extensionData))
        #expect(authData.extensions == ["credProtect": 2])
        #expect(await h.store.allCredentials().first?.credProtect == 2)
    }

    @Test func enterpriseAttestationIsNotOffered() async throws {
        var request = Fixture.makeCredential()
        request.enterpriseAttestation = 1
        #expect(try await Harness().status(of: .makeCredential, request.cbor) == .invalidParameter)
    }

    @Test func zeroLengthPinUvAuthParamProbesAfterPresence() async throws {
        var request = Fixture.makeCredential()
        request.pinUvAuthParam = []
        request.pinUvAuthProtocol = 1
        let h = Harness()
        #expect(try await h.status(of: .makeCredential, request.cbor) == .pinNotSet)
        #expect(await h.presence.requests.count == 1)
    }

    @Test func pinUvAuthParamNeedsAKnownProtocolAndAValidToken() async throws {
        var request = Fixture.makeCredential()
        request.pinUvAuthParam = Array(repeating: 1, count: 16)
        #expect(try await Harness().status(of: .makeCredential, request.cbor) == .missingParameter)
        request.pinUvAuthProtocol = 3
        #expect(try await Harness().status(of: .makeCredential, request.cbor) == .invalidParameter)
        request.pinUvAuthProtocol = 1
        #expect(try await Harness().status(of: .makeCredential, request.cbor) == .pinAuthInvalid)
    }
}
