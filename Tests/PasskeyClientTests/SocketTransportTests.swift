import Authenticator
import CTAP
import CTAPHID
import Foundation
import Logging
import PasskeyDaemon
import PasskeydTestSupport
import RelyingParty
import Testing
import WebAuthn

@testable import PasskeyClient

/// The shared in-process fixture with the real authenticator behind it.
struct SocketDaemon {
    let daemon: InProcessDaemon
    let store: InMemoryCredentialStore
    var path: String { daemon.socketPath }
    var broker: PromptBroker { daemon.broker }

    /// How long a client here lets the device stay silent. This daemon runs in the test process,
    /// whose cooperative pool (one thread per core) the other suites keep busy for seconds at a
    /// time (scrypt, ML-DSA known answers, passkeyd processes started beside): a request can wait
    /// that long for a pool thread before its transaction starts and keepalives begin. A daemon
    /// of its own has its own pool; the transport's 5 s default is for that one.
    static let patience = Duration.seconds(60)

    /// A client of this daemon with `patience`.
    func transport() -> UnixSocketTransport {
        UnixSocketTransport(path: path, silenceTimeout: Self.patience)
    }

    static func start(
        path: String = TemporaryFolder.freshSocketPath("pkc-test"),
        store: InMemoryCredentialStore = InMemoryCredentialStore(),
        presence: PresenceMode = .auto, uv: VerificationMode = .auto
    ) async throws -> SocketDaemon {
        let broker = PromptBroker()
        let quiet = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })
        let authenticator = Authenticator(
            store: store, presence: DaemonUserPresence(mode: presence, broker: broker),
            verifier: DaemonUserVerifier(mode: uv, broker: broker), logger: quiet)
        let daemon = try await InProcessDaemon.start(handler: authenticator, broker: broker, socketPath: path)
        return SocketDaemon(daemon: daemon, store: store)
    }

    /// Runs `body` against a fresh daemon and stops it afterwards (removing its folder), even on failure.
    static func with(
        presence: PresenceMode = .auto, uv: VerificationMode = .auto, _ body: (SocketDaemon) async throws -> Void
    ) async throws {
        let daemon = try await start(presence: presence, uv: uv)
        try await InProcessDaemon.with(daemon.daemon) { _ in try await body(daemon) }
    }

    /// Waits until the daemon is asking the person, then answers.
    func answerPrompt(approve: Bool) async throws {
        while await broker.pendingPrompt?.kind == nil { try await Task.sleep(for: .milliseconds(5)) }
        _ = await broker.resolve(approve: approve)
    }
}

@Suite(.serialized) struct SocketTransportTests {
    let rp = RelyingParty(id: "example.com", name: "Example", origins: ["https://example.com"])

    func client(_ transport: UnixSocketTransport, picks: [ScriptedUserAgent.Pick] = [.first]) throws -> (
        WebAuthnClient, ScriptedUserAgent
    ) {
        let agent = ScriptedUserAgent(picks: picks)
        return (try WebAuthnClient(transport: transport, origin: "https://example.com", userAgent: agent), agent)
    }

    @Test func registrationAndSignInOverTheSocketVerify() async throws {
        try await SocketDaemon.with { daemon in
            let transport = daemon.transport()
            let (client, _) = try client(transport)
            let user = PublicKeyCredentialUserEntityJSON(id: [1, 2, 3], name: "alice", displayName: "Alice")
            let credential = try await rp.finishRegistration(
                try await client.create(await rp.registrationOptions(user: user)))
            guard case .passkey(let assertion) = try await client.get(await rp.authenticationOptions()) else {
                Issue.record("expected a passkey")
                return
            }
            let verified = try await rp.finishAuthentication(
                assertion, credential: { $0 == credential.id ? credential : nil })
            #expect(verified.userHandle == [1, 2, 3])
            #expect(verified.userVerified)
            await transport.close()
        }
    }

    @Test func keepalivesReachTheUserAgentWhileATouchIsPending() async throws {
        try await SocketDaemon.with(presence: .prompt, uv: .off) { daemon in
            let transport = daemon.transport()
            let (client, agent) = try client(transport)
            let options = await rp.registrationOptions(
                user: .init(id: [7], name: "bob", displayName: "Bob"), userVerification: .discouraged)
            async let created = client.create(options)
            while await daemon.broker.pendingPrompt?.kind == nil { try await Task.sleep(for: .milliseconds(5)) }
            try await Task.sleep(for: .milliseconds(300))
            try await daemon.answerPrompt(approve: true)
            _ = try await rp.finishRegistration(try await created)
            // The client hands each status to the user agent in a task of its own, which may
            // run after the ceremony returned on a loaded machine: waited for, up to 60 s (a
            // test's task can wait seconds there for one of the pool's two threads).
            let deadline = ContinuousClock.now + .seconds(60)
            while await !agent.statuses.contains(.userPresenceNeeded), ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(5))
            }
            #expect(await agent.statuses.contains(.userPresenceNeeded))
            await transport.close()
        }
    }

    @Test func cancellingDuringATouchCancelsOnTheDeviceAndTheConnectionStaysReady() async throws {
        try await SocketDaemon.with(presence: .prompt, uv: .off) { daemon in
            let transport = daemon.transport()
            let (client, _) = try client(transport)
            let options = await rp.registrationOptions(
                user: .init(id: [9], name: "carol", displayName: "Carol"), userVerification: .discouraged)
            let pending = Task { try await client.create(options) }
            while await daemon.broker.pendingPrompt?.kind == nil { try await Task.sleep(for: .milliseconds(5)) }
            pending.cancel()
            let error = await webAuthnError { try await pending.value }
            #expect(error?.name == .abort)
            #expect(error?.cause == .ctap(.keepaliveCancel), "the device confirmed the cancel")
            #expect(await daemon.broker.pendingPrompt?.kind == nil, "the prompt is gone")
            // Same transport, same connection: the next request works.
            let retry = Task {
                try await client.create(
                    await rp.registrationOptions(
                        user: .init(id: [9], name: "carol", displayName: "Carol"), userVerification: .discouraged))
            }
            try await daemon.answerPrompt(approve: true)
            _ = try await rp.finishRegistration(try await retry.value)
            await transport.close()
        }
    }

    @Test func conditionalCancelledHalfwayLeavesTheDaemonReadyOnTheSameConnection() async throws {
        try await SocketDaemon.with { daemon in
            let transport = daemon.transport()
            let (client, agent) = try client(transport, picks: [.wait, .first])
            let user = PublicKeyCredentialUserEntityJSON(id: [4], name: "dave", displayName: "Dave")
            let credential = try await rp.finishRegistration(
                try await client.create(await rp.registrationOptions(user: user)))
            let options = await rp.authenticationOptions()
            let conditional = Task { try await client.get(options, mediation: .conditional) }
            while await agent.suggestionsShown.isEmpty { try await Task.sleep(for: .milliseconds(2)) }
            #expect(await agent.suggestionsShown.first?.map(\.label) == ["dave"])
            conditional.cancel()
            #expect(await webAuthnError { try await conditional.value }?.name == .abort)
            guard case .passkey(let assertion) = try await client.get(await rp.authenticationOptions()) else {
                Issue.record("expected a passkey")
                return
            }
            _ = try await rp.finishAuthentication(assertion, credential: { $0 == credential.id ? credential : nil })
            await transport.close()
        }
    }

    @Test func aSecondClientWaitsOutABusyDeviceInsteadOfFailing() async throws {
        try await SocketDaemon.with(presence: .prompt, uv: .off) { daemon in
            let first = CTAP2Session(transport: daemon.transport())
            let second = CTAP2Session(transport: daemon.transport())
            let request = MakeCredentialRequest(
                clientDataHash: [UInt8](repeating: 2, count: 32), rp: .init(id: "example.com"), user: .init(id: [2]),
                pubKeyCredParams: [.init(alg: -7)], options: .init(rk: true))
            let holding = Task { try await first.makeCredential(request) }
            while await daemon.broker.pendingPrompt?.kind == nil { try await Task.sleep(for: .milliseconds(5)) }
            let waiting = Task { try await second.getInfo() }
            try await Task.sleep(for: .milliseconds(300))
            try await daemon.answerPrompt(approve: true)
            _ = try await holding.value
            #expect(
                try await waiting.value.versions.contains("FIDO_2_1"),
                "busy answers were retried until the device was free")
        }
    }

    @Test func longMessagesAreFragmentedBothWays() async throws {
        try await SocketDaemon.with(uv: .off) { daemon in
            let session = CTAP2Session(transport: daemon.transport())
            let exclude = (0..<60).map { n in
                PublicKeyCredentialDescriptor(id: [UInt8](repeating: UInt8(n), count: 100))
            }
            let request = MakeCredentialRequest(
                clientDataHash: [UInt8](repeating: 1, count: 32), rp: .init(id: "example.com"),
                user: .init(
                    id: [1], name: String(repeating: "n", count: 60), displayName: String(repeating: "d", count: 60)),
                pubKeyCredParams: [.init(alg: -7)], excludeList: exclude, options: .init(rk: true))
            #expect(request.cbor.encoded.count > 6000, "about 100 CTAPHID packets")
            let response = try await session.makeCredential(request)
            #expect(try AuthenticatorData(bytes: response.attestation.authenticatorData).attestedCredentialData != nil)
        }
    }

    @Test func transportReconnectsAfterTheDaemonRestarts() async throws {
        let store = InMemoryCredentialStore()
        let first = try await SocketDaemon.start(store: store, uv: .off)
        let session = CTAP2Session(transport: first.transport())
        do { _ = try await session.getInfo() } catch {
            await first.daemon.stop()
            throw error
        }
        // The server only: the folder stays for the second daemon, whose stop() removes it.
        await first.daemon.server.stop()
        await #expect(throws: CTAP2Error.self) { try await session.getInfo() }
        let second = try await SocketDaemon.start(path: first.path, store: store, uv: .off)
        try await InProcessDaemon.with(second.daemon) { _ in
            let info = try await session.getInfo()
            #expect(info.versions.contains("FIDO_2_1"))
        }
    }

    @Test func noDaemonIsUnreachable() async throws {
        let session = CTAP2Session(
            transport: UnixSocketTransport(path: "/tmp/pkc-missing-\(UInt32.random(in: 0...UInt32.max)).sock"))
        await #expect(throws: CTAP2Error.self) { try await session.getInfo() }
        do {
            _ = try await session.getInfo()
        } catch {
            guard case .transport(.unreachable) = error else {
                Issue.record("expected unreachable, got \(error)")
                return
            }
        }
    }
}
