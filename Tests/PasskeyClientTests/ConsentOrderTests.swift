import Authenticator
import CBOR
import CTAP
import Logging
import RelyingParty
import Testing
import WebAuthn

@testable import PasskeyClient

/// The sign-in order of docs/client.md: accounts found without presence, the person's pick, the
/// consent naming it, then one assertion with presence by the chosen credential only.
@Suite struct ConsentOrderTests {
    @Test func pickingAliceSignsWithAliceOnlyAndNoOtherCredentialEverSigns() async throws {
        let recorder = AssertionRecorder()
        let h = try ClientHarness(picks: [.label("alice")], wrap: { RecordingTransport(inner: $0, recorder: recorder) })
        for name in ["alice", "bob", "carol"] { try await h.register(name) }
        let result = try await h.client.get(await h.rp.authenticationOptions())
        #expect(try await h.verify(result) == Array("alice".utf8))
        // Credential management listed the accounts: the only assertion made is alice's, with UP.
        let made = await recorder.assertions
        #expect(made.map(\.userHandle) == [Array("alice".utf8)], "\(made)")
        #expect(made.allSatisfy { $0.userPresent })
        #expect(await h.userAgent.signIns == ["Sign in to example.com as alice?"])
    }

    @Test func declinedConsentIsNotAllowedAndNothingSignsWithPresence() async throws {
        let recorder = AssertionRecorder()
        let h = try ClientHarness(
            picks: [.label("bob")], wrap: { RecordingTransport(inner: $0, recorder: recorder) })
        for name in ["alice", "bob"] { try await h.register(name) }
        await h.userAgent.answerConfirmations(false)
        let touchesBefore = await h.presence.requests.count
        let error = await webAuthnError { try await h.client.get(await h.rp.authenticationOptions()) }
        #expect(error?.name == .notAllowed)
        #expect(await h.userAgent.pickersShown.count == 1)
        #expect(await h.userAgent.signIns.last == "Sign in to example.com as bob?")
        #expect(await recorder.assertions.isEmpty, "declined: nothing signed")
        #expect(await h.presence.requests.count == touchesBefore, "declined before presence was asked")
    }

    @Test func aSingleAccountIsApprovedByName() async throws {
        let h = try ClientHarness()
        try await h.register("alice")
        _ = try await h.client.get(await h.rp.authenticationOptions())
        #expect(await h.userAgent.pickersShown.isEmpty)
        #expect(await h.userAgent.signIns == ["Sign in to example.com as alice?"])
    }

    @Test func conditionalAsksConsentForThePickedSuggestion() async throws {
        let h = try ClientHarness(picks: [.label("bob")])
        for name in ["alice", "bob"] { try await h.register(name) }
        let result = try await h.client.get(await h.rp.authenticationOptions(), mediation: .conditional)
        #expect(try await h.verify(result) == Array("bob".utf8))
        #expect(await h.userAgent.signIns == ["Sign in to example.com as bob?"])
    }

    @Test func declinedConditionalPickSignsNothing() async throws {
        let h = try ClientHarness(picks: [.label("bob")])
        for name in ["alice", "bob"] { try await h.register(name) }
        await h.userAgent.answerConfirmations(false)
        let touchesBefore = await h.presence.requests.count
        await expectWebAuthnError(.notAllowed) {
            try await h.client.get(await h.rp.authenticationOptions(), mediation: .conditional)
        }
        #expect(await h.presence.requests.count == touchesBefore)
    }

    @Test func allowListWithANonResidentCredentialStillSignsAfterConsent() async throws {
        let recorder = AssertionRecorder()
        let h = try ClientHarness(wrap: { RecordingTransport(inner: $0, recorder: recorder) })
        let options = await h.rp.registrationOptions(user: ClientHarness.user("dave"), residentKey: .discouraged)
        let credential = try await h.rp.finishRegistration(try await h.client.create(options))
        await h.registered.put(credential)
        let result = try await h.client.get(
            await h.rp.authenticationOptions(allowCredentials: [credential.descriptor]))
        guard case .passkey(let assertion) = result else { throw WebAuthnError.unknown("no passkey") }
        #expect(assertion.rawId == credential.id)
        #expect(await h.userAgent.signIns.last == "Sign in to example.com with a passkey?")
        #expect(await recorder.assertions.map(\.userPresent) == [false, true], "one silent probe, then the real one")
    }

    /// Silent discovery that finds nothing over an allow list (a credential credProtect hides from a
    /// silent request, CTAP 2.1 §12.1, or none at all) leaves it to one assertion with presence
    /// over the list; the consent names no account.
    @Test func nothingFoundSilentlyFallsBackToOneAssertionOverTheAllowList() async throws {
        let h = try ClientHarness()
        try await h.register("erin")
        let unknown = await h.rp.authenticationOptions(
            allowCredentials: [PublicKeyCredentialDescriptorJSON(id: [1, 2, 3])], userVerification: .discouraged)
        let error = await webAuthnError { try await h.client.get(unknown) }
        #expect(error?.cause == .ctap(.noCredentials))
        #expect(await h.userAgent.signIns.last == "Sign in to example.com with a passkey?")
    }

    @Test func noPasskeyForTheRPAsksNobody() async throws {
        let h = try ClientHarness()
        await expectWebAuthnError(.notAllowed) { try await h.client.get(await h.rp.authenticationOptions()) }
        #expect(await h.userAgent.signIns.isEmpty)
    }
}

extension ScriptedUserAgent {
    /// The sign-in consents asked, in order (registrations ask theirs too).
    var signIns: [String] { confirmations.filter { $0.hasPrefix("Sign in") } }
}

/// What a recording transport saw the authenticator sign.
struct RecordedAssertion: Sendable, Equatable {
    let credentialID: [UInt8]
    let userHandle: [UInt8]?
    let userPresent: Bool
}

actor AssertionRecorder {
    private(set) var assertions: [RecordedAssertion] = []
    func add(_ assertion: RecordedAssertion) { assertions.append(assertion) }
}

/// Passes every message on and records each assertion in the answers (getAssertion, getNextAssertion).
struct RecordingTransport: CTAPTransport {
    let inner: any CTAPTransport
    let recorder: AssertionRecorder

    func send(_ message: [UInt8], keepalive: @escaping @Sendable (KeepaliveStatus) -> Void) async throws(TransportError)
        -> [UInt8]
    {
        let reply = try await inner.send(message, keepalive: keepalive)
        if let command = message.first, command == 0x02 || command == 0x08, reply.first == 0,
            let body = try? CBORDecoder.decode(Array(reply.dropFirst())),
            let response = try? GetAssertionResponse(body: body),
            let flags = response.authenticatorData.dropFirst(32).first
        {
            await recorder.add(
                RecordedAssertion(
                    credentialID: response.credential.id, userHandle: response.user?.id, userPresent: flags & 1 != 0))
        }
        return reply
    }

    func replug() async throws(TransportError) { try await inner.replug() }
}
