import Authenticator
import Testing
@testable import PasskeyDaemon

@Suite struct PromptBrokerTests {
    @Test func anAnswerResolvesThePendingPrompt() async throws {
        let broker = PromptBroker()
        let presence = DaemonUserPresence(mode: .prompt, broker: broker)
        let outcome = Task { await presence.confirmPresence(UserActionRequest(purpose: .getAssertion)) }
        while await broker.pendingKind == nil { await Task.yield() }
        #expect(await broker.pendingKind == .presence)
        #expect(await broker.resolve(approve: true))
        #expect(await outcome.value == .approved)
        #expect(await broker.pendingKind == nil)
        #expect(await broker.resolve(approve: true) == false)
    }

    @Test func cancellingTheAskingTaskGivesCancelled() async throws {
        let broker = PromptBroker()
        let verifier = DaemonUserVerifier(mode: .prompt, broker: broker)
        let outcome = Task { await verifier.verifyUser(UserActionRequest(purpose: .getAssertion)) }
        while await broker.pendingKind == nil { await Task.yield() }
        #expect(await broker.pendingKind == .uv)
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
