/// Somewhere else a pending prompt is shown, so the person can answer where they are (a desktop
/// notification); the terminal's `passkeyctl approve` still answers too, and the first answer wins.
public protocol PromptNotifier: Sendable {
    /// Shows `prompt` until the person answers it (true: allow, false: deny) or closes it without
    /// an answer (nil: the prompt keeps waiting for the terminal). When the calling task is
    /// cancelled (the prompt was answered elsewhere, timed out, or its request went away) the
    /// notice must be taken off the screen and `show` return promptly.
    func show(_ prompt: PromptBroker.Prompt) async -> Bool?
}
