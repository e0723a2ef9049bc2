import Authenticator
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
