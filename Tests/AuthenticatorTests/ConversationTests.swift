import CBOR
import CTAP
import Crypto
import Testing

@testable import Authenticator

/// State that spans commands belongs to the caller that began it (CTAP 2.1 §6.3, §6.8):
/// two platforms on one device each finish their own run, and neither can continue
/// or end the other's.
@Suite struct ConversationTests {
    static let otherClientData = Array(SHA256.hash(data: Array("other client data".utf8)))

    /// Three discoverable accounts on Fixture.rp, oldest first.
    func threeAccounts(on h: Harness) async throws -> [[UInt8]] {
        var ids: [[UInt8]] = []
        for n: UInt8 in 1...3 {
            let response = try await h.makeCredential(Fixture.makeCredential(user: Fixture.user(n)))
            ids.append(
                try #require(
                    try AuthenticatorData(bytes: response.attestation.authenticatorData).attestedCredentialData
                ).credentialID)
        }
        return ids
    }

    @Test func twoCallersInterleavedEachWalkTheirOwnAssertions() async throws {
        let h = Harness()
        let newestFirst = Array(try await threeAccounts(on: h).reversed())
        var other = Fixture.getAssertion()
        other.clientDataHash = Self.otherClientData
        var mine = [try await h.getAssertion(Fixture.getAssertion(), from: .platform)]
        var theirs = [try await h.getAssertion(other, from: .otherPlatform)]
        for _ in 1...2 {
            mine.append(try await h.getNextAssertion(from: .platform))
            theirs.append(try await h.getNextAssertion(from: .otherPlatform))
        }
        #expect(mine.map(\.credential.id) == newestFirst)
        #expect(theirs.map(\.credential.id) == newestFirst)
        // Each run signs over its own caller's client data.
        let keys = try await h.store.allCredentials().reduce(into: [[UInt8]: COSEKey]()) {
            $0[$1.id] = try CredentialKey(algorithm: $1.algorithm, rawRepresentation: $1.privateKey).publicKey()
        }
        for response in mine {
            #expect(
                try verify(
                    signature: response.signature, over: response.authenticatorData + Fixture.clientDataHash,
                    with: try #require(keys[response.credential.id])))
        }
        for response in theirs {
            #expect(
                try verify(
                    signature: response.signature, over: response.authenticatorData + Self.otherClientData,
                    with: try #require(keys[response.credential.id])))
        }
        #expect(try await h.status(of: .getNextAssertion, from: .platform) == .notAllowed)
        #expect(try await h.status(of: .getNextAssertion, from: .otherPlatform) == .notAllowed)
    }

    @Test func anotherCallersCommandsNeitherContinueNorEndARun() async throws {
        let h = Harness()
        let newestFirst = Array(try await threeAccounts(on: h).reversed())
        _ = try await h.getAssertion(Fixture.getAssertion(), from: .platform)
        #expect(
            try await h.status(of: .getNextAssertion, from: .otherPlatform) == .notAllowed, "not theirs to continue")
        #expect(try await h.status(of: .getInfo, from: .otherPlatform) == .success)
        #expect(
            try await h.getNextAssertion(from: .platform).credential.id == newestFirst[1], "still there for its owner")
        // The owner's own other command ends it (§6.3).
        #expect(try await h.status(of: .getInfo, from: .platform) == .success)
        #expect(try await h.status(of: .getNextAssertion, from: .platform) == .notAllowed)
    }

    @Test func aReleasedCallerLosesItsRunAndNobodyElseDoes() async throws {
        let h = Harness()
        _ = try await threeAccounts(on: h)
        _ = try await h.getAssertion(Fixture.getAssertion(), from: .platform)
        _ = try await h.getAssertion(Fixture.getAssertion(), from: .otherPlatform)
        await h.authenticator.release(.platform)
        #expect(try await h.status(of: .getNextAssertion, from: .platform) == .notAllowed)
        #expect(try await h.status(of: .getNextAssertion, from: .otherPlatform) == .success)
    }

    @Test func aPowerCycleEndsEveryonesRun() async throws {
        let h = Harness()
        _ = try await threeAccounts(on: h)
        _ = try await h.getAssertion(Fixture.getAssertion(), from: .platform)
        _ = try await h.getAssertion(Fixture.getAssertion(), from: .otherPlatform)
        await h.authenticator.powerCycle()
        #expect(try await h.status(of: .getNextAssertion, from: .platform) == .notAllowed)
        #expect(try await h.status(of: .getNextAssertion, from: .otherPlatform) == .notAllowed)
    }

    /// Pending assertions name credentials; each is read when it signs, so one removed
    /// meanwhile (by another caller) is skipped rather than signed from a stale copy.
    @Test func aCredentialDeletedMidRunIsSkipped() async throws {
        let h = Harness()
        let newestFirst = Array(try await threeAccounts(on: h).reversed())
        _ = try await h.getAssertion(Fixture.getAssertion(), from: .platform)
        try await h.store.delete(credentialID: newestFirst[1])
        #expect(try await h.getNextAssertion(from: .platform).credential.id == newestFirst[2])
        #expect(try await h.status(of: .getNextAssertion, from: .platform) == .notAllowed)
    }

    @Test(arguments: bothProtocols)
    func twoCallersInterleavedEachFinishTheirOwnEnumeration(version: PinUvAuthProtocolVersion) async throws {
        let (h, platform, _) = try await CredentialManagementTests.populated(version)
        func send(_ request: CredentialManagementRequest, from caller: CTAPCaller) async throws
            -> CredentialManagementResponse
        {
            let (status, body) = try await h.send(.credentialManagement, request.cbor, from: caller)
            try #require(status == .success)
            return try CredentialManagementResponse(cbor: try #require(body))
        }
        let rpToken = try await platform.grantedToken(pin: "1234", permissions: .cm)
        let firstRP = try await send(platform.credentialManagement(.enumerateRPsBegin, token: rpToken), from: .platform)
        // A new token voids the first; the first caller's GetNext needs none.
        let other = PlatformPIN(h.speaking(as: .otherPlatform), version)
        let credentialToken = try await other.grantedToken(pin: "1234", permissions: .cm)
        let params = CredentialManagementParameters(
            rpIDHash: CredentialManagementTests.hash(CredentialManagementTests.rpA.id))
        let firstCredential = try await send(
            other.credentialManagement(.enumerateCredentialsBegin, params, token: credentialToken), from: .otherPlatform
        )
        #expect(firstRP.totalRPs == 3)
        #expect(firstCredential.totalCredentials == 2)

        var rps = [try #require(firstRP.rp?.id)]
        var users = [try #require(firstCredential.user?.id)]
        rps.append(
            try #require(
                try await send(CredentialManagementRequest(subCommand: .enumerateRPsGetNextRP), from: .platform).rp?.id)
        )
        users.append(
            try #require(
                try await send(
                    CredentialManagementRequest(subCommand: .enumerateCredentialsGetNextCredential),
                    from: .otherPlatform
                ).user?.id))
        rps.append(
            try #require(
                try await send(CredentialManagementRequest(subCommand: .enumerateRPsGetNextRP), from: .platform).rp?.id)
        )
        #expect(rps == ["a.example", "b.example", "c.example"])
        #expect(Set(users) == [Fixture.user(1).id, Fixture.user(2).id])
        // Neither can take a step of the other's kind.
        #expect(
            try await h.send(
                .credentialManagement, CredentialManagementRequest(subCommand: .enumerateRPsGetNextRP).cbor,
                from: .otherPlatform
            ).0 == .notAllowed)
    }
}
