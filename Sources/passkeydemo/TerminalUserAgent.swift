import CTAP
import PasskeyClient

/// The person at the terminal as WebAuthn's user agent: the account picker and AutoFill
/// suggestions as lists, the PIN typed hidden, and the authenticator's "touch me" shown
/// while it waits. With `passkeyd --presence prompt` the touch is Enter (or Esc to refuse),
/// sent to the daemon on a connection of its own as `passkeyctl approve` would.
actor TerminalUserAgent: UserAgent {
    let console: Console
    /// Answers the daemon's pending presence prompt (PRESENCE vendor command).
    let answerPresence: @Sendable (Bool) async -> Void
    private var touchPrompt: Task<Void, Never>?
    /// Built-in verification failed before the PIN was asked for (the biometric fallback).
    private(set) var pinRequests = 0

    init(console: Console, answerPresence: @escaping @Sendable (Bool) async -> Void) {
        self.console = console
        self.answerPresence = answerPresence
    }

    func chooseCredential(from choices: [CredentialChoice], rpID: String) async -> CredentialChoice? {
        await endTouchPrompt()
        guard let index = await console.choose(
            ["Sign in to \(rpID)", "Choose an account:"], items: choices.map(\.label), footer: "↑/↓ or a number, Enter to choose, Esc to cancel")
        else { return nil }
        return choices[index]
    }

    func offerSuggestions(_ choices: [CredentialChoice], rpID: String) async -> CredentialChoice? {
        await endTouchPrompt()
        guard let index = await console.choose(
            ["Username: ▏", "AutoFill suggestions for \(rpID):"], items: choices.map(\.label),
            footer: "↑/↓ or a number, Enter to fill in, Esc to dismiss")
        else { return nil }
        return choices[index]
    }

    func enterPIN(retriesLeft: Int?) async -> String? {
        await endTouchPrompt()
        pinRequests += 1
        let tries = retriesLeft.map { " (\($0) \($0 == 1 ? "try" : "tries") left)" } ?? ""
        if pinRequests == 1 { console.say("Your fingerprint or face was not recognized, or this authenticator has none: use the PIN.") }
        return await console.readLine("Authenticator PIN\(tries): ", secret: true)
    }

    func chooseNewPIN(minimumLength: Int) async -> String? {
        await endTouchPrompt()
        return await console.readLine("This site needs a PIN on your authenticator. New PIN (at least \(minimumLength) characters): ", secret: true)
    }

    func confirm(_ message: String) async -> Bool {
        await endTouchPrompt()
        console.say("\(message) [Enter = yes, Esc = no]")
        return await console.confirm()
    }

    func show(_ status: KeepaliveStatus) async {
        guard status == .userPresenceNeeded, touchPrompt == nil else { return }
        console.say("Touch your authenticator… (Enter approves, Esc refuses)")
        let (console, answer) = (console, answerPresence)
        touchPrompt = Task {
            let approve = await console.confirm()
            guard !Task.isCancelled else { return }
            console.say(approve ? "Approved." : "Refused.")
            await answer(approve)
            // The next wait (a second touch in the same ceremony) gets its own prompt.
            await self.touchAnswered()
        }
    }

    private func touchAnswered() {
        touchPrompt = nil
    }

    /// The ceremony is over (or has moved on to another question): stop waiting for a touch.
    func endTouchPrompt() async {
        guard let touchPrompt else { return }
        self.touchPrompt = nil
        touchPrompt.cancel()
        await console.keyboard.abandon()
    }
}
