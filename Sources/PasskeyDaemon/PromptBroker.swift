import Authenticator
import CTAP
import Logging

/// Holds the one question the daemon may be asking its user at a time (a touch
/// or a fingerprint in `prompt` mode) until an answer arrives over the socket
/// (vendor command PRESENCE) or from the desktop (`PromptNotifier`: the first answer wins),
/// the prompt times out, or the asking task is cancelled.
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
        /// Why the authenticator asks (sign-in, registration, reset...), for the prompt's words.
        public var purpose: UserActionRequest.Purpose?
        /// The program whose request asks, when its connection said (`PromptRequester.current`).
        public var requester: PromptRequester?
        /// The account concerned, when the request names it.
        public var account: String?

        public init(
            id: UInt64, kind: Kind, rpID: String? = nil, purpose: UserActionRequest.Purpose? = nil,
            requester: PromptRequester? = nil, account: String? = nil
        ) {
            self.id = id
            self.kind = kind
            self.rpID = rpID
            self.purpose = purpose
            self.requester = requester
            self.account = account
        }
    }

    private struct Pending {
        var prompt: Prompt
        var id: UInt64 { prompt.id }
        var continuation: CheckedContinuation<PresenceOutcome, Never>
        var timer: Task<Void, Never>
        /// The prompt on the desktop, taken down (cancelled) once the prompt ends.
        var notice: Task<Void, Never>?
    }

    private var pending: Pending?
    private var nextID: UInt64 = 0
    /// How long a prompt waits; 30 s after CTAP 2.1 §6 (user action timeout).
    public let timeout: Duration
    /// Where watchers see prompts come and go.
    private let controls: TestControls?
    /// Where else each prompt is shown (the desktop), if anywhere.
    private let notifier: (any PromptNotifier)?
    private let logger: Logger
    /// The modes the daemon asks (or answers for) the person with, for STATUS; nil in tests
    /// that build a broker alone.
    public nonisolated let modes: PromptModes?

    public init(
        timeout: Duration = .seconds(30), controls: TestControls? = nil, notifier: (any PromptNotifier)? = nil,
        modes: PromptModes? = nil, logger: Logger = Logger(label: "passkeyd.prompt")
    ) {
        self.timeout = timeout
        self.controls = controls
        self.notifier = notifier
        self.modes = modes
        self.logger = logger
    }

    /// What is waiting for an answer, if anything.
    public var pendingPrompt: Prompt? { pending?.prompt }

    /// Asks and waits for the answer; the program asking is the task's `PromptRequester.current`.
    public func ask(
        _ kind: Kind, rpID: String? = nil, purpose: UserActionRequest.Purpose? = nil, account: String? = nil
    ) async -> PresenceOutcome {
        if Task.isCancelled { return .cancelled }
        nextID += 1
        let prompt = Prompt(
            id: nextID, kind: kind, rpID: rpID, purpose: purpose, requester: PromptRequester.current, account: account)
        await controls?.announce(DeviceEvent(kind: .promptPending, rpID: rpID, detail: kind.rawValue))
        let answer = await answer(prompt)
        await controls?.announce(DeviceEvent(kind: .promptAnswered, rpID: rpID, detail: "\(kind.rawValue) \(answer)"))
        return answer
    }

    /// Asks for `request`, as `ask(_:rpID:purpose:)` does.
    public func ask(_ kind: Kind, for request: UserActionRequest) async -> PresenceOutcome {
        await ask(kind, rpID: request.rpID, purpose: request.purpose, account: request.account)
    }

    private func answer(_ prompt: Prompt) async -> PresenceOutcome {
        let id = prompt.id
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<PresenceOutcome, Never>) in
                // A newer prompt supersedes an older one; only one transaction runs at a time.
                finish(id: pending?.id, with: .cancelled)
                let timeout = self.timeout
                let timer = Task { [weak self] in
                    try? await Task.sleep(for: timeout)
                    if Task.isCancelled { return }
                    await self?.finish(id: id, with: .timedOut)
                }
                pending = Pending(prompt: prompt, continuation: continuation, timer: timer)
                pending?.notice = notifier.map { notifier in
                    Task { [weak self] in
                        guard let approve = await notifier.show(prompt), !Task.isCancelled else { return }
                        await self?.answerFromDesktop(approve: approve, id: id)
                    }
                }
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

    /// The person answered on the desktop: the same answer as `passkeyctl approve`/`deny`, logged
    /// as the terminal's is (docs/vendor-commands.md), unless another answer came first.
    private func answerFromDesktop(approve: Bool, id: UInt64) {
        guard let prompt = answer(approve: approve, id: id) else { return }
        logger.notice(
            approve ? "prompt approved" : "prompt denied",
            metadata: [
                "prompt": "\(prompt.id)", "kind": "\(prompt.kind.rawValue)", "rp": "\(prompt.rpID ?? "-")",
                "named": "true", "requester": "desktop notification"
            ])
    }

    private func finish(id: UInt64?, with answer: PresenceOutcome) {
        guard let current = pending, current.id == id else { return }
        pending = nil
        current.timer.cancel()
        current.notice?.cancel()
        current.continuation.resume(returning: answer)
    }
}
