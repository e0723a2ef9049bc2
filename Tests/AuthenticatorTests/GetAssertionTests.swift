import CBOR
import CTAP
import Crypto
import Testing

@testable import Authenticator

@Suite struct GetAssertionTests {
    /// Registers `count` discoverable accounts, oldest first, and returns their credential IDs and public keys.
    func register(_ count: UInt8, on h: Harness, algorithm: Int = -7) async throws -> [(id: [UInt8], key: COSEKey)] {
        var out: [(id: [UInt8], key: COSEKey)] = []
        for n in 1...count {
            let response = try await h.makeCredential(Fixture.makeCredential(user: Fixture.user(n), algs: [algorithm]))
            let attested = try #require(
                try AuthenticatorData(bytes: response.attestation.authenticatorData).attestedCredentialData)
            out.append((attested.credentialID, attested.publicKey))
        }
        return out
    }

    @Test(arguments: [-7, -8, -35, -36])
    func discoverableAssertionsWalkEveryAccountNewestFirst(algorithm: Int) async throws {
        let h = Harness()
        let accounts = try await register(3, on: h, algorithm: algorithm)
        let first = try await h.getAssertion(Fixture.getAssertion())
        #expect(first.numberOfCredentials == 3)
        var seen = [first]
        seen.append(try await h.getNextAssertion())
        seen.append(try await h.getNextAssertion())
        #expect(seen.map(\.credential.id) == accounts.reversed().map(\.id))
        #expect(seen.map { $0.user?.id } == [Fixture.user(3).id, Fixture.user(2).id, Fixture.user(1).id])
        for (response, account) in zip(seen, accounts.reversed()) {
            #expect(
                try verify(
                    signature: response.signature, over: response.authenticatorData + Fixture.clientDataHash,
                    with: account.key))
            #expect(try AuthenticatorData(bytes: response.authenticatorData).flags == [.userPresent])
        }
        #expect(seen.dropFirst().allSatisfy { $0.numberOfCredentials == nil })
        #expect(try await h.status(of: .getNextAssertion) == .notAllowed, "nothing left")
    }

    @Test func userNamesAreReturnedOnlyAfterUserVerification() async throws {
        let h = Harness(verifier: .always(.verified))
        _ = try await h.makeCredential(Fixture.makeCredential(user: Fixture.user(1), uv: true))
        let plain = try await h.getAssertion(Fixture.getAssertion())
        #expect(plain.user == PublicKeyCredentialUserEntity(id: Fixture.user(1).id))
        let verified = try await h.getAssertion(Fixture.getAssertion(uv: true))
        #expect(verified.user == Fixture.user(1))
        #expect(try AuthenticatorData(bytes: verified.authenticatorData).flags == [.userPresent, .userVerified])
    }

    @Test func singleAccountOmitsNumberOfCredentials() async throws {
        let h = Harness()
        _ = try await register(1, on: h)
        #expect(try await h.getAssertion(Fixture.getAssertion()).numberOfCredentials == nil)
        #expect(try await h.status(of: .getNextAssertion) == .notAllowed)
    }

    @Test func nextAssertionStateEndsWithAnyOtherCommand() async throws {
        let h = Harness()
        _ = try await register(2, on: h)
        _ = try await h.getAssertion(Fixture.getAssertion())
        #expect(try await h.status(of: .getInfo) == .success)
        #expect(try await h.status(of: .getNextAssertion) == .notAllowed)
    }

    @Test func nextAssertionStateExpiresAfterThirtySeconds() async throws {
        let h = Harness()
        _ = try await register(3, on: h)
        _ = try await h.getAssertion(Fixture.getAssertion())
        h.clock.advance(.seconds(29))
        _ = try await h.getNextAssertion()
        h.clock.advance(.seconds(31))
        #expect(try await h.status(of: .getNextAssertion) == .notAllowed)
    }

    @Test func silentAssertionLeavesUPClearAndAsksNobody() async throws {
        let h = Harness(presence: [.approved, .denied])
        _ = try await register(1, on: h)
        let response = try await h.getAssertion(Fixture.getAssertion(up: false))
        #expect(try AuthenticatorData(bytes: response.authenticatorData).flags == [])
        #expect(await h.presence.requests.count == 1, "only the registration asked")
    }

    /// A prompt names the account when the request names one: a registration's user, and a
    /// sign-in's when only one credential can answer; with several the platform chooses later.
    @Test func presenceRequestsNameTheAccountWhenOneIsKnown() async throws {
        let h = Harness()
        _ = try await register(1, on: h)
        _ = try await h.getAssertion(Fixture.getAssertion())
        _ = try await register(1, on: h)
        _ = try await h.getAssertion(Fixture.getAssertion())
        let accounts = await h.presence.requests.map(\.account)
        #expect(accounts == ["user1@example.com", "user1@example.com", "user1@example.com", "user1@example.com"])
        _ = try await h.makeCredential(Fixture.makeCredential(user: Fixture.user(2)))
        _ = try await h.getAssertion(Fixture.getAssertion())
        #expect(await h.presence.requests.last?.account == nil, "two accounts: none named before the choice")
    }

    @Test func signatureCountersArePerCredentialAndPersist() async throws {
        let h = Harness()
        let accounts = try await register(2, on: h)
        func count(_ id: [UInt8]) async throws -> UInt32 {
            let response = try await h.getAssertion(Fixture.getAssertion(allow: [id]))
            return try AuthenticatorData(bytes: response.authenticatorData).signCount
        }
        #expect(try await count(accounts[0].id) == 1)
        #expect(try await count(accounts[0].id) == 2)
        #expect(try await count(accounts[1].id) == 1)
        // The store holds a mark at or above every count given (SignatureCounterLease) …
        #expect(try #require(await h.store.credential(id: accounts[0].id)?.signCount) >= 2)
        // … so the same device after a restart (or a crash) counts on above it.
        let restarted = Harness(store: h.store)
        let response = try await restarted.getAssertion(Fixture.getAssertion(allow: [accounts[0].id]))
        #expect(try AuthenticatorData(bytes: response.authenticatorData).signCount > 2)
    }

    /// One resident and one non-resident credential: the two kinds of counter.
    func residentAndWrapped(on h: Harness) async throws -> (resident: [UInt8], wrapped: [UInt8]) {
        let account = try #require(try await register(1, on: h).first)
        let nonResident = try await h.makeCredential(Fixture.makeCredential(rk: false))
        return (
            account.id,
            try #require(try AuthenticatorData(bytes: nonResident.attestation.authenticatorData).attestedCredentialData)
                .credentialID
        )
    }

    func count(_ id: [UInt8], on h: Harness) async throws -> UInt32 {
        try AuthenticatorData(bytes: try await h.getAssertion(Fixture.getAssertion(allow: [id])).authenticatorData)
            .signCount
    }

    @Test func aCleanShutdownSettlesTheMarksSoCountingGoesOnByOne() async throws {
        let h = Harness()
        let (id, wrapped) = try await residentAndWrapped(on: h)
        let resident = try await count(id, on: h)
        let global = try await count(wrapped, on: h)
        await h.authenticator.settleSignatureCounters()
        #expect(await h.store.credential(id: id)?.signCount == resident)
        #expect(try await h.store.loadDeviceState()?.globalSignCount == global)
        let restarted = Harness(store: h.store)
        #expect(try await count(id, on: restarted) == resident + 1, "as a hardware key counts")
        #expect(try await count(wrapped, on: restarted) == global + 1)
        // counter-freeze after a restart repeats the count the RP last saw, not a mark above it.
        await restarted.authenticator.settleSignatureCounters()
        let again = Harness(store: h.store)
        await again.authenticator.controls.arm(FaultRule(fault: .counterFreeze, remaining: 1, rpID: nil))
        #expect(try await count(id, on: again) == resident + 1)
        #expect(try await count(id, on: again) == resident + 2)
    }

    @Test func countsWithinALeaseWriteNothingAndARestartNeverGoesBack() async throws {
        let h = Harness()
        let (id, wrapped) = try await residentAndWrapped(on: h)
        let first = try await count(id, on: h)
        let mark = try #require(await h.store.credential(id: id)?.signCount)
        let globalFirst = try await count(wrapped, on: h)
        let globalMark = try #require(await h.store.loadDeviceState()?.globalSignCount)
        var last = (resident: first, global: globalFirst)
        // A whole lease's worth of assertions: one count per assertion, each above the last,
        // and the stored marks move only when a count passes them.
        for _ in 0..<Int(SignatureCounterLease.size) {
            let resident = try await count(id, on: h)
            let global = try await count(wrapped, on: h)
            #expect(resident == last.resident + 1 && global == last.global + 1)
            last = (resident, global)
            let stored = try #require(await h.store.credential(id: id)?.signCount)
            let storedGlobal = try #require(await h.store.loadDeviceState()?.globalSignCount)
            #expect(stored >= resident && storedGlobal >= global)
            #expect(resident > mark || stored == mark, "no write within the lease")
            #expect(global > globalMark || storedGlobal == globalMark, "no write within the lease")
        }
        #expect(last.resident > mark && last.global > globalMark, "the run outgrew its first lease")
        let restarted = Harness(store: h.store)
        #expect(try await count(id, on: restarted) > last.resident)
        #expect(try await count(wrapped, on: restarted) > last.global)
    }

    @Test func leaseSteps() {
        let first = SignatureCounterLease.advance(nil, storedMark: 41)
        #expect(first.count == 42 && first.newMark == 41 + SignatureCounterLease.size)
        let second = SignatureCounterLease.advance(first.lease, storedMark: 41)
        #expect(second.count == 43 && second.newMark == nil)
        var lease = second.lease
        while lease.issued < lease.mark { lease = SignatureCounterLease.advance(lease, storedMark: 0).lease }
        let past = SignatureCounterLease.advance(lease, storedMark: 0)
        #expect(past.count == lease.mark + 1 && past.newMark == lease.mark + SignatureCounterLease.size)
        let top = SignatureCounterLease.advance(nil, storedMark: UInt32.max - 3)
        #expect(top.count == UInt32.max - 2 && top.newMark == UInt32.max)
    }

    @Test func nonResidentCredentialAssertsThroughTheAllowList() async throws {
        let h = Harness()
        let response = try await h.makeCredential(Fixture.makeCredential(rk: false))
        let attested = try #require(
            try AuthenticatorData(bytes: response.attestation.authenticatorData).attestedCredentialData)
        let unknown: [UInt8] = Array(repeating: 7, count: 40)
        let assertion = try await h.getAssertion(Fixture.getAssertion(allow: [unknown, attested.credentialID]))
        #expect(assertion.credential.id == attested.credentialID)
        #expect(assertion.user == nil)
        #expect(assertion.numberOfCredentials == nil)
        #expect(
            try verify(
                signature: assertion.signature, over: assertion.authenticatorData + Fixture.clientDataHash,
                with: attested.publicKey))
        let again = try await h.getAssertion(Fixture.getAssertion(allow: [attested.credentialID]))
        #expect(
            try AuthenticatorData(bytes: again.authenticatorData).signCount
                > AuthenticatorData(bytes: assertion.authenticatorData).signCount)
    }

    @Test func credentialIDIsBoundToItsRPAndItsBytes() async throws {
        let h = Harness()
        let response = try await h.makeCredential(Fixture.makeCredential(rk: false))
        let id = try #require(
            try AuthenticatorData(bytes: response.attestation.authenticatorData).attestedCredentialData
        ).credentialID
        #expect(
            try await h.status(of: .getAssertion, Fixture.getAssertion(rpID: "evil.example", allow: [id]).cbor)
                == .noCredentials)
        for index in [0, 5, 20, id.count - 1] {
            var tampered = id
            tampered[index] ^= 0x01
            #expect(
                try await h.status(of: .getAssertion, Fixture.getAssertion(allow: [tampered]).cbor) == .noCredentials)
        }
        let otherDevice = Harness()
        _ = try await otherDevice.status(of: .getInfo)
        #expect(
            try await otherDevice.status(of: .getAssertion, Fixture.getAssertion(allow: [id]).cbor) == .noCredentials)
    }

    @Test func noCredentialsForAnUnknownRP() async throws {
        let h = Harness()
        _ = try await register(1, on: h)
        #expect(
            try await h.status(of: .getAssertion, Fixture.getAssertion(rpID: "nobody.example").cbor) == .noCredentials)
    }

    @Test func rkOptionIsUnsupportedInGetAssertion() async throws {
        var request = Fixture.getAssertion()
        request.options.rk = true
        #expect(try await Harness().status(of: .getAssertion, request.cbor) == .unsupportedOption)
    }

    @Test func uvOptionWithoutBuiltInUVIsInvalid() async throws {
        #expect(try await Harness().status(of: .getAssertion, Fixture.getAssertion(uv: true).cbor) == .invalidOption)
    }

    @Test func deniedPresenceSignsNothing() async throws {
        let h = Harness(presence: [.approved, .denied])
        let accounts = try await register(1, on: h)
        #expect(try await h.status(of: .getAssertion, Fixture.getAssertion().cbor) == .operationDenied)
        #expect(await h.store.credential(id: accounts[0].id)?.signCount == 0)
    }

    @Test func credProtectRequiredHidesTheCredentialWithoutUV() async throws {
        let h = Harness(verifier: .always(.verified))
        _ = try await h.makeCredential(Fixture.makeCredential(uv: true, extensions: ["credProtect": 3]))
        #expect(try await h.status(of: .getAssertion, Fixture.getAssertion().cbor) == .noCredentials)
        #expect(try await h.status(of: .getAssertion, Fixture.getAssertion(uv: true).cbor) == .success)
    }
}
