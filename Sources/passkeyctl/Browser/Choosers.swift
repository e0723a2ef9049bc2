/// The prompts the host has open in the extension: account choosers, suggestion lists and PIN
/// dialogs, each waiting for the `choice` that names it. An abort of the request closes its
/// prompt (nil, as dismissed or cancelled).
actor Choosers {
    /// What a prompt asks, and so which answer it takes.
    private enum Question {
        /// Pick one of `count` entries (`choose`, `suggest`).
        case entries(count: Int)
        /// Type the authenticator's PIN (`pin`).
        case pin

        /// The answer that closes the prompt unanswered.
        var dismissed: ChoiceAnswer {
            switch self {
            case .entries: return .index(nil)
            case .pin: return .pin(nil)
            }
        }
    }

    private struct Open {
        let question: Question
        let answer: CheckedContinuation<ChoiceAnswer, Never>
    }

    private var open: [String: Open] = [:]
    private var next = 0

    /// Shows a chooser of `count` entries through `show` (given the chooser's new id) and waits
    /// for its answer: the picked index, or nil when dismissed or when the calling task is cancelled.
    func ask(count: Int, show: @Sendable (String) -> Void) async -> Int? {
        guard case .index(let index) = await prompt(.entries(count: count), prefix: "chooser", show: show) else {
            return nil
        }
        return index
    }

    /// Shows a PIN dialog through `show` (given the dialog's new id) and waits for the PIN the
    /// person typed, or nil when they cancelled or the calling task is cancelled.
    func askPIN(show: @Sendable (String) -> Void) async -> String? {
        guard case .pin(let pin) = await prompt(.pin, prefix: "pin", show: show) else { return nil }
        return pin
    }

    private func prompt(_ question: Question, prefix: String, show: @Sendable (String) -> Void) async -> ChoiceAnswer {
        next += 1
        let id = "\(prefix)-\(next)"
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (answer: CheckedContinuation<ChoiceAnswer, Never>) in
                guard !Task.isCancelled else { return answer.resume(returning: question.dismissed) }
                open[id] = Open(question: question, answer: answer)
                show(id)
            }
        } onCancel: {
            Task { await self.answer(id, question.dismissed) }
        }
    }

    /// The extension's `choice`. An index beyond the entries, or an answer of the other kind (a
    /// PIN for a chooser, an index for a PIN dialog), is refused and the prompt stays open; a
    /// prompt no longer open (answered, or its request ended) is ignored: a late click is no error.
    /// A refusal never quotes the PIN.
    func answer(_ id: String, _ given: ChoiceAnswer) -> Refusal? {
        guard let prompt = open[id] else { return nil }
        switch (prompt.question, given) {
        case (.entries(let count), .index(let index?)) where index >= count:
            return Refusal(
                message: "The choice message's index \(index) is out of range: chooser \(id) has \(count) entries.")
        case (.entries, .index), (.pin, .pin):
            break
        case (.entries, .pin):
            return Refusal(
                message:
                    "The choice message for \(id) carries a 'pin', but \(id) is an account chooser: answer it with 'index'."
            )
        case (.pin, .index):
            return Refusal(
                message:
                    "The choice message for \(id) carries an 'index', but \(id) asks for a PIN: answer it with 'pin'.")
        }
        open[id] = nil
        prompt.answer.resume(returning: given)
        return nil
    }

    struct Refusal: Error {
        let message: String
    }
}
