import CBOR
import CTAP
import Testing

@testable import Authenticator

/// What watchers see: one event per thing the device did, in order, without secrets.
@Suite struct DeviceEventTests {
    @Test func aSessionIsSeenInOrder() async throws {
        let h = Harness()
        let events = await h.authenticator.controls.watch()
        var iterator = events.makeAsyncIterator()
        let made = try await h.makeCredential(Fixture.makeCredential(user: Fixture.user(1, name: "alice")))
        let id = try #require(try AuthenticatorData(bytes: made.attestation.authenticatorData).attestedCredentialData)
            .credentialID
        await h.authenticator.controls.arm(FaultRule(fault: .counterZero))
        _ = try await h.getAssertion(Fixture.getAssertion())
        _ = try await h.getAssertion(Fixture.getAssertion())

        let added = try #require(await iterator.next())
        #expect(added.kind == .credentialAdded)
        #expect(
            added.rpID == "example.com" && added.credentialID == id && added.userName == "alice" && added.signCount == 0
        )
        let fired = try #require(await iterator.next())
        #expect(fired.kind == .faultFired && fired.detail == "counter-zero" && fired.rpID == "example.com")
        let first = try #require(await iterator.next())
        #expect(
            first.kind == .credentialAsserted && first.credentialID == id && first.signCount == 0,
            "the count the RP saw")
        let second = try #require(await iterator.next())
        #expect(second.signCount == 2)
    }

    /// U2F_REGISTER and U2F_AUTHENTICATE are seen as CTAP2's registrations and assertions are,
    /// with the key handle and the counter, and no RP or user (U2F names neither); a check-only
    /// authenticate, which signs nothing, and U2F_VERSION are not.
    @Test func u2fRegistrationsAndAuthenticationsAreSeen() async throws {
        let h = Harness(profile: .u2f)
        let events = await h.authenticator.controls.watch()
        var iterator = events.makeAsyncIterator()
        _ = await U2FTests.send(h, .version)
        let registration = try await U2FTests.register(h)
        _ = await U2FTests.authenticate(h, .checkOnly, keyHandle: registration.keyHandle)
        _ = await U2FTests.authenticate(h, .enforceUserPresence, keyHandle: registration.keyHandle)

        let added = try #require(await iterator.next())
        #expect(added.kind == .credentialAdded && added.credentialID == registration.keyHandle && added.signCount == 0)
        #expect(added.rpID == nil && added.userName == nil)
        let asserted = try #require(await iterator.next())
        #expect(asserted.kind == .credentialAsserted && asserted.credentialID == registration.keyHandle)
        #expect(asserted.signCount == 1 && asserted.rpID == nil)
    }

    /// Nothing is described while nobody watches; a watcher sees what happens from its subscription on.
    @Test func aWatcherSeesWhatHappensFromItsSubscriptionOn() async throws {
        let h = Harness()
        _ = try await h.makeCredential(Fixture.makeCredential(user: Fixture.user(1, name: "alice")))
        let events = await h.authenticator.controls.watch()
        var iterator = events.makeAsyncIterator()
        _ = try await h.makeCredential(Fixture.makeCredential(user: Fixture.user(2, name: "bob")))
        _ = try await h.getAssertion(Fixture.getAssertion())
        let added = try #require(await iterator.next())
        #expect(added.kind == .credentialAdded && added.userName == "bob", "alice's registration came before the watch")
        let asserted = try #require(await iterator.next())
        #expect(asserted.kind == .credentialAsserted)
    }

    @Test func aSlowWatcherMissesEventsAndIsToldHowMany() async throws {
        let controls = TestControls()
        let events = await controls.watch()
        for _ in 0..<(TestControls.watchBuffer + 5) { await controls.record(DeviceEvent(kind: .reset)) }
        var iterator = events.makeAsyncIterator()
        for _ in 0..<TestControls.watchBuffer { #expect(await iterator.next()?.kind == .reset) }
        // The watcher caught up: the next event arrives, saying how many it missed.
        await controls.record(DeviceEvent(kind: .pinSet))
        let next = try #require(await iterator.next())
        #expect(next.kind == .pinSet)
        #expect(next.dropped == 5)
    }

    @Test func eventsRoundTripWithoutLosingAField() throws {
        var event = DeviceEvent(
            kind: .credentialAsserted, rpID: "example.com", credentialID: [1, 2, 3], userName: "bob",
            signCount: 9, detail: "x")
        event.dropped = 4
        let decoded = try DeviceEvent(bytes: event.cbor.encoded)
        #expect(decoded.kind == event.kind && decoded.rpID == event.rpID && decoded.credentialID == event.credentialID)
        #expect(decoded.userName == "bob" && decoded.signCount == 9 && decoded.detail == "x" && decoded.dropped == 4)
        #expect(abs(decoded.time.timeIntervalSince(event.time)) < 0.001)
    }
}
