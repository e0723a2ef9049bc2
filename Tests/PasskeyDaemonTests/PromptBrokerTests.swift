import Authenticator
import Foundation
import PasskeydLocal
import Testing

@testable import PasskeyDaemon

@Suite struct PromptBrokerTests {
    @Test func anAnswerResolvesThePendingPrompt() async throws {
        let broker = PromptBroker()
        let presence = DaemonUserPresence(mode: .prompt, broker: broker)
        let outcome = Task { await presence.confirmPresence(UserActionRequest(purpose: .getAssertion)) }
        while await broker.pendingPrompt?.kind == nil { await Task.yield() }
        #expect(await broker.pendingPrompt?.kind == .presence)
        #expect(await broker.resolve(approve: true))
        #expect(await outcome.value == .approved)
        #expect(await broker.pendingPrompt?.kind == nil)
        #expect(await broker.resolve(approve: true) == false)
    }

    /// Hardening finding 5: an approval meant for one request never approves the next.
    @Test func anAnswerNamingAnEndedPromptReachesNoLaterOne() async throws {
        let broker = PromptBroker()
        let presence = DaemonUserPresence(mode: .prompt, broker: broker)
        let first = Task {
            await presence.confirmPresence(UserActionRequest(purpose: .getAssertion, rpID: "first.example"))
        }
        while await broker.pendingPrompt == nil { await Task.yield() }
        let seen = try #require(await broker.pendingPrompt)
        #expect(seen.rpID == "first.example")
        first.cancel()
        #expect(await first.value == .cancelled)

        let second = Task {
            await presence.confirmPresence(UserActionRequest(purpose: .makeCredential, rpID: "second.example"))
        }
        while await broker.pendingPrompt == nil { await Task.yield() }
        let next = try #require(await broker.pendingPrompt)
        #expect(next.id != seen.id)
        #expect(next.rpID == "second.example")
        #expect(await broker.resolve(approve: true, id: seen.id) == false, "the late approval names the first prompt")
        #expect(await broker.pendingPrompt == next, "the second is still waiting")
        #expect(await broker.resolve(approve: false, id: next.id))
        #expect(await second.value == .denied)
    }

    @Test func cancellingTheAskingTaskGivesCancelled() async throws {
        let broker = PromptBroker()
        let verifier = DaemonUserVerifier(mode: .prompt, broker: broker)
        let outcome = Task { await verifier.verifyUser(UserActionRequest(purpose: .getAssertion)) }
        while await broker.pendingPrompt?.kind == nil { await Task.yield() }
        #expect(await broker.pendingPrompt?.kind == .uv)
        outcome.cancel()
        #expect(await outcome.value == .cancelled)
    }

    @Test func aPromptNobodyAnswersTimesOut() async throws {
        let broker = PromptBroker(timeout: .milliseconds(20))
        let presence = DaemonUserPresence(mode: .prompt, broker: broker)
        #expect(await presence.confirmPresence(UserActionRequest(purpose: .makeCredential)) == .timedOut)
    }

    @Test func fixedModesAnswerWithoutAsking() async throws {
        let broker = PromptBroker()
        let request = UserActionRequest(purpose: .makeCredential)
        #expect(await DaemonUserPresence(mode: .auto, broker: broker).confirmPresence(request) == .approved)
        #expect(await DaemonUserPresence(mode: .deny, broker: broker).confirmPresence(request) == .denied)
        #expect(await DaemonUserVerifier(mode: .auto, broker: broker).verifyUser(request) == .verified)
        #expect(await DaemonUserVerifier(mode: .deny, broker: broker).verifyUser(request) == .failed)
        #expect(DaemonUserVerifier(mode: .off, broker: broker).isConfigured == false)
        #expect(DaemonUserVerifier(mode: .prompt, broker: broker).isConfigured)
    }
}

/// `--presence prompt` asks whatever `--uv` says, and a desktop answer counts as the terminal's.
@Suite struct PresenceWhateverUVTests {
    /// Issue 40 item 3: the simulated reader of `--uv auto` reads at once, so under `--presence
    /// prompt` the token it yields (which carries presence) waits for the person.
    @Test func simulatedUVWaitsForThePersonUnderPresencePrompt() async throws {
        let broker = PromptBroker()
        let verifier = DaemonUserVerifier(mode: .auto, broker: broker, presence: .prompt)
        let outcome = Task {
            await verifier.verifyUser(UserActionRequest(purpose: .pinUvAuthToken, rpID: "example.com"))
        }
        while await broker.pendingPrompt == nil { await Task.yield() }
        let prompt = try #require(await broker.pendingPrompt)
        #expect(prompt.kind == .presence)
        #expect(prompt.rpID == "example.com")
        #expect(prompt.purpose == .pinUvAuthToken)
        #expect(await broker.resolve(approve: true))
        #expect(await outcome.value == .verified)
    }

    @Test func aRefusedTouchIsNoFailedMatch() async throws {
        let broker = PromptBroker()
        let verifier = DaemonUserVerifier(mode: .auto, broker: broker, presence: .prompt)
        let outcome = Task { await verifier.verifyUser(UserActionRequest(purpose: .getAssertion)) }
        while await broker.pendingPrompt == nil { await Task.yield() }
        #expect(await broker.resolve(approve: false))
        // A failed match would cost one of uvRetries; the person only said no.
        #expect(await outcome.value == .cancelled)
        let denying = DaemonUserVerifier(mode: .auto, broker: broker, presence: .deny)
        #expect(await denying.verifyUser(UserActionRequest(purpose: .getAssertion)) == .cancelled)
    }

    @Test func presenceAutoAndEnrolmentSamplesAreNotAsked() async throws {
        let broker = PromptBroker()
        let request = UserActionRequest(purpose: .getAssertion)
        #expect(await DaemonUserVerifier(mode: .auto, broker: broker, presence: .auto).verifyUser(request) == .verified)
        let sample = UserActionRequest(purpose: .fingerprintSample)
        #expect(
            await DaemonUserVerifier(mode: .auto, broker: broker, presence: .prompt).verifyUser(sample) == .verified)
        #expect(await broker.pendingPrompt == nil)
    }

    @Test func theDesktopAnswerResolvesThePrompt() async throws {
        let desktop = ScriptedNotifier(answer: false)
        let broker = PromptBroker(notifier: desktop)
        let presence = DaemonUserPresence(mode: .prompt, broker: broker)
        let request = UserActionRequest(purpose: .getAssertion, rpID: "ssh:")
        var me = PeerCredentials()
        me.pid = getpid()
        let asking = me
        let outcome = await PromptRequester.$peer.withValue(asking) { await presence.confirmPresence(request) }
        #expect(outcome == .denied)
        let shown = try #require(await desktop.shown.first)
        // This test process, named from /proc/self's pid.
        #expect(shown.requester?.pid == getpid())
        #expect(shown.requester?.program.isEmpty == false)
        #expect(shown.rpID == "ssh:")
        #expect(await broker.pendingPrompt == nil)
    }

    /// The first answer wins: the terminal's takes the notification down.
    @Test func aTerminalAnswerTakesTheNotificationDown() async throws {
        let desktop = ScriptedNotifier(answer: nil)
        let broker = PromptBroker(notifier: desktop)
        let presence = DaemonUserPresence(mode: .prompt, broker: broker)
        let outcome = Task { await presence.confirmPresence(UserActionRequest(purpose: .makeCredential)) }
        while await desktop.shown.isEmpty { await Task.yield() }
        #expect(await broker.resolve(approve: true))
        #expect(await outcome.value == .approved)
        while await desktop.takenDown == 0 { await Task.yield() }
        #expect(await desktop.takenDown == 1)
    }
}

/// A desktop whose person gives `answer` at once (nil: never answers, waits to be taken down).
private actor ScriptedNotifier: PromptNotifier {
    let answer: Bool?
    var shown: [PromptBroker.Prompt] = []
    var takenDown = 0

    init(answer: Bool?) { self.answer = answer }

    nonisolated func show(_ prompt: PromptBroker.Prompt) async -> Bool? {
        await record(prompt)
        if let answer { return answer }
        while !Task.isCancelled { try? await Task.sleep(for: .milliseconds(5)) }
        await tookDown()
        return nil
    }

    private func record(_ prompt: PromptBroker.Prompt) { shown.append(prompt) }
    private func tookDown() { takenDown += 1 }
}

@Suite struct PromptWordingTests {
    @Test func namesTheProgramTheSiteAndEscapesMarkup() {
        let prompt = PromptBroker.Prompt(
            id: 1, kind: .presence, rpID: "ssh:", purpose: .getAssertion,
            requester: PromptRequester(pid: 7, program: "evil <b>&</b>"))
        let wording = PromptWording(prompt)
        #expect(wording.summary == "Sign in to ssh key ssh:?")
        #expect(wording.body.hasPrefix("evil <b>&</b> asks passkeyd to sign in."))
        #expect(wording.markupBody.contains("evil &lt;b&gt;&amp;&lt;/b&gt;"))
        #expect(!wording.markupBody.contains("<b>"))
    }

    @Test func aProgramWithoutArgumentsIsNamedWithItsParent() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("proc-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        func process(_ pid: Int, parent: Int, _ argv: [String]) throws {
            let folder = root.appendingPathComponent("\(pid)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try Data(argv.joined(separator: "\0").utf8 + [0]).write(to: folder.appendingPathComponent("cmdline"))
            try "\(pid) (some name) S \(parent) 1 1".write(
                to: folder.appendingPathComponent("stat"), atomically: true, encoding: .utf8)
        }
        try process(100, parent: 99, ["ssh", "-p", "2222", "alice@host"])
        try process(101, parent: 100, ["/usr/lib/openssh/ssh-sk-helper"])
        try process(102, parent: 1, ["/usr/bin/pamtester", "svc", "alice", "authenticate"])
        #expect(PromptRequester(pid: 101, procRoot: root.path).program == "ssh-sk-helper (ssh -p 2222 alice@host)")
        #expect(PromptRequester(pid: 102, procRoot: root.path).program == "pamtester svc alice authenticate")
        #expect(PromptRequester(pid: 103, procRoot: root.path).program == "process 103")
    }
}
