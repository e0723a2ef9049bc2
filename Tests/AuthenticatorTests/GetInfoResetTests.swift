import CBOR
import CTAP
import Logging
import Testing

@testable import Authenticator

@Suite struct GetInfoResetTests {
    @Test func getInfoReportsWhatTheDeviceDoes() async throws {
        let h = Harness()
        let (status, body) = try await h.send(.getInfo)
        #expect(status == .success)
        let info = try GetInfoResponse(cbor: try #require(body))
        // The default fido2.1 profile also answers CTAP1/U2F (CTAP 2.1 §6.4 `versions`).
        #expect(info.versions == ["U2F_V2", "FIDO_2_0", "FIDO_2_1"])
        #expect(info.aaguid == Authenticator.Configuration.passkeydAAGUID)
        #expect(info.algorithms.map(\.alg) == [-7, -8, -35, -36, -48, -49, -50, -37, -257, -47], "ES256 first")
        #expect(info.options["rk"] == true)
        #expect(info.options["up"] == true)
        #expect(info.options["plat"] == false)
        #expect(info.options["uv"] == nil, "no built-in UV method at all")
        #expect(info.options["clientPin"] == false, "PIN supported, none set")
        #expect(info.maxMsgSize == 7609)
        #expect(info.transports == ["usb"])
        #expect(info.firmwareVersion != nil)
        #expect(info.remainingDiscoverableCredentials == 100)
    }

    @Test func getInfoReflectsBuiltInUVAndStoredCount() async throws {
        let configured = Harness(verifier: .always(.verified))
        _ = try await configured.makeCredential(Fixture.makeCredential(uv: true))
        let info = try GetInfoResponse(cbor: try #require(try await configured.send(.getInfo).1))
        #expect(info.options["uv"] == true)
        #expect(info.remainingDiscoverableCredentials == 99)
        let unconfigured = Harness(verifier: ScriptedVerifier([.verified], configured: false))
        let other = try GetInfoResponse(cbor: try #require(try await unconfigured.send(.getInfo).1))
        #expect(other.options["uv"] == false)
    }

    @Test func resetWipesCredentialsAndTheWrappingKey() async throws {
        let h = Harness()
        _ = try await h.makeCredential(Fixture.makeCredential(rk: true))
        let nonResident = try await h.makeCredential(Fixture.makeCredential(rk: false))
        let id = try #require(
            try AuthenticatorData(bytes: nonResident.attestation.authenticatorData).attestedCredentialData
        ).credentialID
        #expect(try await h.status(of: .reset) == .success)
        #expect(await h.store.count() == 0)
        #expect(try await h.status(of: .getAssertion, Fixture.getAssertion().cbor) == .noCredentials)
        #expect(try await h.status(of: .getAssertion, Fixture.getAssertion(allow: [id]).cbor) == .noCredentials)
    }

    @Test func resetOnlyWithinTenSecondsOfPowerUp() async throws {
        let h = Harness()
        _ = try await h.makeCredential(Fixture.makeCredential())
        h.clock.advance(.seconds(11))
        #expect(try await h.status(of: .reset) == .notAllowed)
        #expect(await h.store.count() == 1)
        await h.authenticator.powerCycle()
        #expect(try await h.status(of: .reset) == .success)
    }

    @Test func resetNeedsPresence() async throws {
        let h = Harness(presence: [.approved, .denied, .timedOut])
        _ = try await h.makeCredential(Fixture.makeCredential())
        #expect(try await h.status(of: .reset) == .operationDenied)
        #expect(try await h.status(of: .reset) == .userActionTimeout)
        #expect(await h.store.count() == 1)
    }

    @Test func selectionAnswersWithPresence() async throws {
        #expect(try await Harness().status(of: .selection) == .success)
        #expect(try await Harness(presence: [.denied]).status(of: .selection) == .operationDenied)
        #expect(try await Harness(presence: [.cancelled]).status(of: .selection) == .keepaliveCancel)
    }

    @Test func cancellingTheCallingTaskCancelsAPresenceWait() async throws {
        let h = Harness(presence: [.approved])
        let slow = SlowPresence()
        let authenticator = Authenticator(store: h.store, presence: slow)
        let task = Task { await authenticator.handle([CTAPCommand.selection.rawValue]) }
        await slow.waitUntilAsked()
        task.cancel()
        #expect(await task.value == [CTAPStatus.keepaliveCancel.rawValue])
    }
}

/// Presence that waits until its task is cancelled, like a user who never touches.
actor SlowPresence: UserPresence {
    private var asked = false
    private var askedWaiters: [CheckedContinuation<Void, Never>] = []

    func confirmPresence(_ request: UserActionRequest) async -> PresenceOutcome {
        asked = true
        askedWaiters.forEach { $0.resume() }
        askedWaiters = []
        while !Task.isCancelled { try? await Task.sleep(for: .milliseconds(5)) }
        return .cancelled
    }

    func waitUntilAsked() async {
        if asked { return }
        await withCheckedContinuation { askedWaiters.append($0) }
    }
}

@Suite struct PowerCycleTests {
    @Test func aPowerCycleWaitsForTheCommandInFlightAndThenEndsItsState() async throws {
        let gate = GatedPresence()
        let authenticator = Authenticator(
            store: InMemoryCredentialStore(), presence: gate,
            logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }))
        for n: UInt8 in 1...2 {
            let reply = await authenticator.handle(
                [CTAPCommand.makeCredential.rawValue] + Fixture.makeCredential(user: Fixture.user(n)).cbor.encoded)
            #expect(reply.first == CTAPStatus.success.rawValue)
        }
        await gate.hold()
        let assertion = Task {
            await authenticator.handle([CTAPCommand.getAssertion.rawValue] + Fixture.getAssertion().cbor.encoded)
        }
        while await !gate.asked { try await Task.sleep(for: .milliseconds(2)) }
        let replug = Task { await authenticator.powerCycle() }
        try await Task.sleep(for: .milliseconds(50))
        await gate.release()
        #expect(await assertion.value.first == CTAPStatus.success.rawValue)
        await replug.value
        // Had the power cycle run during the touch, the assertion would have left its
        // getNextAssertion state behind it.
        #expect(await authenticator.handle([CTAPCommand.getNextAssertion.rawValue]) == [CTAPStatus.notAllowed.rawValue])
    }
}

/// Presence that approves at once, or waits while held.
actor GatedPresence: UserPresence {
    private var holding = false
    private(set) var asked = false

    func hold() { holding = true }
    func release() { holding = false }

    func confirmPresence(_ request: UserActionRequest) async -> PresenceOutcome {
        if holding { asked = true }
        while holding { try? await Task.sleep(for: .milliseconds(2)) }
        return .approved
    }
}
