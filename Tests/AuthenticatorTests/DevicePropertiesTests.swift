import CBOR
import CTAP
import Testing

@testable import Authenticator

/// `--backup-eligible`/`--backup-state` and `--counter`: what a synced-passkey provider reports
/// instead of a hardware key.
@Suite struct DevicePropertiesTests {
    private func flags(_ bytes: [UInt8]) throws -> AuthenticatorData.Flags { try AuthenticatorData(bytes: bytes).flags }

    @Test func hardwareKeyCredentialsAreSingleDevice() async throws {
        let h = Harness()
        let made = try await h.makeCredential(Fixture.makeCredential())
        #expect(try flags(made.attestation.authenticatorData).isDisjoint(with: [.backupEligible, .backedUp]))
        #expect(try flags(try await h.getAssertion(Fixture.getAssertion()).authenticatorData) == [.userPresent])
    }

    @Test(arguments: [(true, false), (true, true)])
    func backupFlagsAreReportedAtCreationAndInEveryAssertion(eligible: Bool, backedUp: Bool) async throws {
        let backup = try #require(BackupFlags(eligible: eligible, backedUp: backedUp))
        let h = Harness { $0.backup = backup }
        let made = try await h.makeCredential(Fixture.makeCredential())
        let nonResident = try await h.makeCredential(Fixture.makeCredential(user: Fixture.user(2), rk: false))
        let expected: AuthenticatorData.Flags = backedUp ? [.backupEligible, .backedUp] : [.backupEligible]
        #expect(try flags(made.attestation.authenticatorData).intersection([.backupEligible, .backedUp]) == expected)
        #expect(
            try flags(try await h.getAssertion(Fixture.getAssertion()).authenticatorData)
                == expected.union(.userPresent))
        let id = try #require(
            try AuthenticatorData(bytes: nonResident.attestation.authenticatorData).attestedCredentialData
        ).credentialID
        #expect(
            try flags(try await h.getAssertion(Fixture.getAssertion(allow: [id])).authenticatorData)
                == expected.union(.userPresent))
        #expect(try await h.store.allCredentials().first?.backup == backup, "kept with the credential")
    }

    @Test func backedUpWithoutEligibilityIsRefused() {
        #expect(BackupFlags(eligible: false, backedUp: true) == nil)
    }

    @Test func aCredentialKeepsTheFlagsItWasMadeWith() async throws {
        let store = InMemoryCredentialStore(capacity: 10)
        let synced = Harness(store: store) { $0.backup = BackupFlags(eligible: true, backedUp: true)! }
        _ = try await synced.makeCredential(Fixture.makeCredential())
        let restarted = Harness(store: store)
        #expect(
            try flags(try await restarted.getAssertion(Fixture.getAssertion()).authenticatorData) == [
                .userPresent, .backupEligible, .backedUp
            ])
    }

    private func counts(_ mode: SignatureCounterMode) async throws -> [UInt32] {
        let h = Harness { $0.signatureCounter = mode }
        _ = try await h.makeCredential(Fixture.makeCredential(user: Fixture.user(1)))
        _ = try await h.makeCredential(
            Fixture.makeCredential(rp: PublicKeyCredentialRpEntity(id: "other.example"), user: Fixture.user(2)))
        var counts: [UInt32] = []
        for rpID in ["example.com", "other.example", "example.com"] {
            counts.append(
                try AuthenticatorData(
                    bytes: try await h.getAssertion(Fixture.getAssertion(rpID: rpID)).authenticatorData
                ).signCount)
        }
        return counts
    }

    @Test func countersFollowTheConfiguredMode() async throws {
        #expect(try await counts(.perCredential) == [1, 1, 2])
        #expect(try await counts(.global) == [1, 2, 3])
        #expect(try await counts(.zero) == [0, 0, 0])
    }
}
