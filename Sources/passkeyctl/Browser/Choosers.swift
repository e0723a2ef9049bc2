/// The account choosers and suggestion lists the host has open in the extension, each waiting
/// for the `choice` that names it. An abort of the request closes its chooser (nil, as dismissed).
actor Choosers {
    private struct Open {
        let count: Int
        let answer: CheckedContinuation<Int?, Never>
    }

    private var open: [String: Open] = [:]
    private var next = 0

    /// Shows a chooser of `count` entries through `show` (given the chooser's new id) and waits
    /// for its answer: the picked index, or nil when dismissed or when the calling task is cancelled.
    func ask(count: Int, show: @Sendable (String) -> Void) async -> Int? {
        next += 1
        let id = "chooser-\(next)"
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (answer: CheckedContinuation<Int?, Never>) in
                guard !Task.isCancelled else { return answer.resume(returning: nil) }
                open[id] = Open(count: count, answer: answer)
                show(id)
            }
        } onCancel: {
            Task { await self.answer(id, index: nil) }
        }
    }

    /// The extension's `choice`. An index beyond the entries is refused (the chooser stays open);
    /// a chooser no longer open (answered, or its request ended) is ignored: a late click is no error.
    func answer(_ id: String, index: Int?) -> Refusal? {
        guard let chooser = open[id] else { return nil }
        if let index, index >= chooser.count {
            return Refusal(message: "The choice message's index \(index) is out of range: chooser \(id) has \(chooser.count) entries.")
        }
        open[id] = nil
        chooser.answer.resume(returning: index)
        return nil
    }

    struct Refusal: Error {
        let message: String
    }
}
