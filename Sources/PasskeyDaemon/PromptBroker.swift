import Authenticator
import CTAP

/// Holds the one question the daemon may be asking its user at a time (a touch
/// or a fingerprint in `prompt` mode) until an answer arrives over the socket
/// (vendor command PRESENCE), the prompt times out, or the asking task is cancelled.
///
/// One at a time is enough: prompts only happen inside a CTAP transaction, and
/// the device runs one transaction at a time (CTAP 2.1 §11.2.9).
public actor PromptBroker {
    /// What is being asked, as STATUS reports it.
    public enum Kind: String, Sendable {
        case presence
        case uv
    }

    /// The question waiting for an answer, as STATUS shows it: an answer may name its id,
    /// so an approval meant for one request never approves the next.
    public struct Prompt: Sendable, Equatable {
        public var id: UInt64
        public var kind: Kind
        /// The relying party the request is for, when it has one.
        public var rpID: String?
    }

    private struct Pending {
        var prompt: Prompt
        var id: UInt64 { prompt.id }
        var continuation: CheckedContinuation<PresenceOutcome, Never>
        var timer: Task<Void, Never>
    }

    private var pending: Pending?
    private var nextID: UInt64 = 0
    /// How long a prompt waits; 30 s after CTAP 2.1 §6 (user action timeout).
    public let timeout: Duration
    /// Where watchers see prompts come and go.
    private let controls: TestControls?

    public init(timeout: Duration = .seconds(30), controls: TestControls? = nil) {
        self.timeout = timeout
        self.controls = controls
    }

    /// What is waiting for an answer, if anything.
    public var pendingPrompt: Prompt? { pending?.prompt }

    /// Asks and waits for the answer.
    public func ask(_ kind: Kind, rpID: String? = nil) async -> PresenceOutcome {
        if Task.isCancelled { return .cancelled }
        nextID += 1
        let id = nextID
        await controls?.announce(DeviceEvent(kind: .promptPending, rpID: rpID, detail: kind.rawValue))
        let answer = await answer(to: id, kind: kind, rpID: rpID)
        await controls?.announce(DeviceEvent(kind: .promptAnswered, rpID: rpID, detail: "\(kind.rawValue) \(answer)"))
        return answer
    }

    private func answer(to id: UInt64, kind: Kind, rpID: String?) async -> PresenceOutcome {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<PresenceOutcome, Never>) in
                // A newer prompt supersedes an older one; only one transaction runs at a time.
                finish(id: pending?.id, with: .cancelled)
                let timeout = self.timeout
                let timer = Task { [weak self] in
                    try? await Task.sleep(for: timeout)
                    if Task.isCancelled { return }
                    await self?.finish(id: id, with: .timedOut)
                }
                pending = Pending(
                    prompt: Prompt(id: id, kind: kind, rpID: rpID), continuation: continuation, timer: timer)
            }
        } onCancel: {
            Task { await self.finish(id: id, with: .cancelled) }
        }
    }

    /// Answers the pending prompt, only if it is prompt `id` when an id is given.
    /// Returns whether a prompt took the answer.
    @discardableResult
    public func resolve(approve: Bool, id: UInt64? = nil) -> Bool {
        answer(approve: approve, id: id) != nil
    }

    /// Answers as `resolve` does; returns the prompt that took the answer, for the log.
    public func answer(approve: Bool, id: UInt64? = nil) -> Prompt? {
        guard let pending, id == nil || id == pending.id else { return nil }
        finish(id: pending.id, with: approve ? .approved : .denied)
        return pending.prompt
    }

    private func finish(id: UInt64?, with answer: PresenceOutcome) {
        guard let current = pending, current.id == id else { return }
        pending = nil
        current.timer.cancel()
        current.continuation.resume(returning: answer)
    }
}
