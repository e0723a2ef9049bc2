import CBOR
import CTAP
import Crypto
import Testing

@testable import Authenticator

/// Armed faults change what one transaction reports, signs or answers, and nothing stored.
@Suite struct FaultTests {
    /// One discoverable credential and the assertion that follows it, under whatever is armed.
    private func registered(_ h: Harness) async throws -> (id: [UInt8], key: COSEKey) {
        let response = try await h.makeCredential(Fixture.makeCredential())
        let attested = try #require(
            try AuthenticatorData(bytes: response.attestation.authenticatorData).attestedCredentialData)
        return (attested.credentialID, attested.publicKey)
    }

    private func arm(_ h: Harness, _ text: String, count: Int? = 1, rp: String? = nil) async throws {
        await h.authenticator.controls.arm(FaultRule(fault: try Fault(parsing: text), remaining: count, rpID: rp))
    }

    @Test func bogusSignatureFailsVerificationOnceThenSignaturesVerifyAgain() async throws {
        let h = Harness()
        let credential = try await registered(h)
        try await arm(h, "bogus-signature")
        let bad = try await h.getAssertion(Fixture.getAssertion())
        #expect(
            try !verify(
                signature: bad.signature, over: bad.authenticatorData + Fixture.clientDataHash, with: credential.key))
        let good = try await h.getAssertion(Fixture.getAssertion())
        #expect(
            try verify(
                signature: good.signature, over: good.authenticatorData + Fixture.clientDataHash, with: credential.key))
        #expect(await h.authenticator.controls.armed.isEmpty, "a --count 1 fault is used up")
    }

    @Test func bogusAttestationSignatureDoesNotVerify() async throws {
        let h = Harness()
        try await arm(h, "bogus-signature")
        let response = try await h.makeCredential(Fixture.makeCredential())
        let key = try #require(
            try AuthenticatorData(bytes: response.attestation.authenticatorData).attestedCredentialData
        ).publicKey
        guard case .packed(_, let sig, _) = response.attestation.statement else {
            Issue.record("packed expected")
            return
        }
        #expect(
            try !verify(
                signature: sig, over: response.attestation.authenticatorData + Fixture.clientDataHash, with: key))
    }

    @Test(arguments: [
        ("clear-up", AuthenticatorData.Flags([])),
        ("set-uv", AuthenticatorData.Flags([.userPresent, .userVerified]))
    ])
    func flagFaultsAreSignedAsReported(fault: String, flags: AuthenticatorData.Flags) async throws {
        let h = Harness()
        let credential = try await registered(h)
        try await arm(h, fault)
        let response = try await h.getAssertion(Fixture.getAssertion())
        #expect(try AuthenticatorData(bytes: response.authenticatorData).flags == flags)
        #expect(
            try verify(
                signature: response.signature, over: response.authenticatorData + Fixture.clientDataHash,
                with: credential.key),
            "the lie is validly signed, so only the RP's flag check can catch it")
    }

    @Test func clearUVHidesAVerification() async throws {
        let h = Harness(verifier: .always(.verified))
        _ = try await h.makeCredential(Fixture.makeCredential(uv: true))
        try await arm(h, "clear-uv")
        let response = try await h.getAssertion(Fixture.getAssertion(uv: true))
        #expect(try AuthenticatorData(bytes: response.authenticatorData).flags == [.userPresent])
    }

    @Test func counterFaultsChangeTheReportedCountNotTheStoredOne() async throws {
        let h = Harness()
        _ = try await registered(h)
        func count() async throws -> UInt32 {
            try AuthenticatorData(bytes: try await h.getAssertion(Fixture.getAssertion()).authenticatorData).signCount
        }
        #expect(try await count() == 1)
        #expect(try await count() == 2)
        try await arm(h, "counter-freeze", count: 2)
        #expect(try await count() == 2, "the previous count again")
        #expect(try await count() == 2, "and again: a frozen counter does not advance")
        try await arm(h, "counter-rewind=2")
        #expect(try await count() == 1, "3 rewound by 2")
        try await arm(h, "counter-zero")
        #expect(try await count() == 0)
        #expect(try await count() == 5, "the counter kept advancing underneath rewind and zero")
    }

    @Test func statusFaultAnswersInsteadOfRunningAndStoresNothing() async throws {
        let h = Harness()
        try await arm(h, "status=KEY_STORE_FULL")
        #expect(try await h.status(of: .makeCredential, Fixture.makeCredential().cbor) == .keyStoreFull)
        #expect(try await h.store.count() == 0)
        #expect(try await h.status(of: .makeCredential, Fixture.makeCredential().cbor) == .success)
    }

    @Test func denyRefusesPresenceWithoutAskingTheUser() async throws {
        let h = Harness(presence: [.approved])
        try await arm(h, "deny")
        #expect(try await h.status(of: .makeCredential, Fixture.makeCredential().cbor) == .operationDenied)
        #expect(await h.presence.requests.isEmpty, "the user was never asked")
    }

    @Test func denyOverridesThePresenceATokenCarries() async throws {
        let h = Harness(presence: [.approved], verifier: .always(.verified))
        _ = try await h.makeCredential(Fixture.makeCredential(uv: true))
        let platform = PlatformPIN(h, .two)
        let (status, token) = try await platform.tokenUsingUV(permissions: .ga, rpID: Fixture.rp.id)
        try #require(status == .success)
        try await arm(h, "deny")
        let request = platform.getAssertion(try #require(token))
        #expect(
            try await h.status(of: .getAssertion, request.cbor) == .operationDenied,
            "the token's touch does not count: presence is asked and refused, as a platform's user would see it")
    }

    @Test func denyRefusesBuiltInVerificationWithoutCostingARetry() async throws {
        let h = Harness(verifier: .always(.verified))
        try await arm(h, "deny")
        #expect(try await h.status(of: .makeCredential, Fixture.makeCredential(uv: true).cbor) == .operationDenied)
        #expect(try await h.status(of: .makeCredential, Fixture.makeCredential(uv: true).cbor) == .success)
    }

    @Test func rpScopedFaultsWaitForTheirRelyingParty() async throws {
        let h = Harness()
        try await arm(h, "status=OPERATION_DENIED", rp: "other.example")
        #expect(try await h.status(of: .makeCredential, Fixture.makeCredential().cbor) == .success)
        #expect(await h.authenticator.controls.armed.count == 1, "not used up by another RP")
        let other = Fixture.makeCredential(rp: PublicKeyCredentialRpEntity(id: "other.example", name: "Other"))
        #expect(try await h.status(of: .makeCredential, other.cbor) == .operationDenied)
        #expect(await h.authenticator.controls.armed.isEmpty)
    }

    @Test func alwaysFaultsStayArmedUntilCleared() async throws {
        let h = Harness()
        try await arm(h, "status=PUAT_REQUIRED", count: nil)
        for _ in 0..<3 {
            #expect(try await h.status(of: .makeCredential, Fixture.makeCredential().cbor) == .puatRequired)
        }
        await h.authenticator.controls.clear()
        #expect(try await h.status(of: .makeCredential, Fixture.makeCredential().cbor) == .success)
    }

    @Test func dropEndsTheTransactionUnansweredAndForgetsVolatileState() async throws {
        let h = Harness()
        for n: UInt8 in 1...2 { _ = try await h.makeCredential(Fixture.makeCredential(user: Fixture.user(n))) }
        _ = try await h.getAssertion(Fixture.getAssertion())
        try await arm(h, "drop")
        #expect(try await h.status(of: .makeCredential, Fixture.makeCredential(user: Fixture.user(3)).cbor) == .other)
        #expect(await h.authenticator.controls.takeDrop(.platform), "the transport is told to close the connection")
        #expect(try await h.status(of: .getNextAssertion) == .notAllowed, "the unplug ended the pending assertions")
        #expect(try await h.store.count() == 2, "the dropped registration stored nothing")
    }

    @Test func faultsOnlyMeetCredentialAndAssertionTransactions() async throws {
        let h = Harness()
        try await arm(h, "status=OTHER")
        #expect(try await h.status(of: .getInfo) == .success)
        #expect(await h.authenticator.controls.armed.count == 1)
    }
}

@Suite struct FaultSpellingTests {
    @Test(arguments: [
        "bogus-signature", "clear-up", "clear-uv", "set-uv", "counter-zero", "counter-freeze",
        "counter-rewind=7", "latency=250", "deny", "drop", "status=CTAP2_ERR_PIN_INVALID"
    ])
    func everyKindReadsBackAsWritten(text: String) throws {
        #expect(try Fault(parsing: text).name == text)
    }

    @Test func statusesAreReadByShortNameOrValue() throws {
        #expect(try Fault(parsing: "status=pin_invalid") == .status(.pinInvalid))
        #expect(try Fault(parsing: "status=0x31") == .status(.pinInvalid))
    }

    @Test(arguments: [
        ("flip", FaultSyntaxError.unknown("flip")),
        ("counter-rewind", .badArgument("counter-rewind", "counter-rewind=VALUE")),
        ("counter-rewind=0", .badArgument("counter-rewind=0", "a positive whole number")),
        ("latency=-1", .badArgument("latency=-1", "milliseconds from 0 to 60000"))
    ])
    func badSpellingsSayWhatIsExpected(text: String, error: FaultSyntaxError) {
        #expect(throws: error) { try Fault(parsing: text) }
    }

    @Test func statusOKIsNotAFault() {
        #expect(throws: FaultSyntaxError.self) { try Fault(parsing: "status=CTAP2_OK") }
        #expect(throws: FaultSyntaxError.self) { try Fault(parsing: "status=NO_SUCH_STATUS") }
    }

    @Test func rulesRoundTripThroughTheVendorCommand() throws {
        let rule = FaultRule(fault: .counterRewind(3), remaining: 2, rpID: "example.com")
        #expect(try FaultCommand(bytes: FaultCommand.set(rule).cbor.encoded) == .set(rule))
        #expect(
            try FaultCommand.decodeReply(FaultCommand.encodeReply([rule, FaultRule(fault: .drop, remaining: nil)]))
                == [rule, FaultRule(fault: .drop, remaining: nil)])
        #expect(throws: CTAPStatus.invalidParameter) {
            try FaultCommand(bytes: CBORValue.map(["op": "set", "rule": .map(["fault": "drop", "count": 0])]).encoded)
        }
        #expect(throws: CTAPStatus.invalidSubcommand) { try FaultCommand(bytes: CBORValue.map(["op": "arm"]).encoded) }
    }
}
