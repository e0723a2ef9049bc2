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
    /// Account pickers shown so far (an immediate request that showed one was not silent).
    private(set) var pickersShown = 0
    /// The button beside the AutoFill field, if the page has one (AutoFill hybrid).
    private var fieldButton: String?
    /// How the person last left the AutoFill field.
    private(set) var fieldOutcome: Console.FieldOutcome?
    /// Lines the next screen keeps at its top (what just happened, which a redraw would wipe).
    private var carried: [String] = []

    init(console: Console, answerPresence: @escaping @Sendable (Bool) async -> Void) {
        self.console = console
        self.answerPresence = answerPresence
    }

    /// The page has a button beside its AutoFill field (AutoFill hybrid's “Sign in with a passkey”).
    func offerButton(_ title: String) {
        fieldButton = title
    }

    /// Keeps `line` at the top of the next screen.
    func carry(_ line: String) {
        carried.append(line)
    }

    private func takeCarried() -> [String] {
        defer { carried = [] }
        return carried.isEmpty ? [] : carried + [""]
    }

    func chooseCredential(from choices: [CredentialChoice], rpID: String) async -> CredentialChoice? {
        await endTouchPrompt()
        pickersShown += 1
        guard
            let index = await console.choose(
                takeCarried() + ["Sign in to \(rpID)", "Choose an account:"], items: choices.map(Self.row),
                footer: "↑/↓ or a number, Enter to choose, Esc to cancel")
        else { return nil }
        return choices[index]
    }

    func offerSuggestions(_ choices: [CredentialChoice], rpID: String) async -> CredentialChoice? {
        await endTouchPrompt()
        let outcome = await console.autofill(
            takeCarried() + ["Sign in to \(rpID)", ""], suggestions: choices.map(Self.row), button: fieldButton)
        fieldOutcome = outcome
        guard case .picked(let index) = outcome else { return nil }
        return choices[index]
    }

    /// A picker's line says what the entry is before it is chosen.
    private static func row(_ choice: CredentialChoice) -> String {
        switch choice {
        case .passkey: return "\(choice.label) — passkey"
        case .password: return "\(choice.label) — saved password"
        }
    }

    func enterPIN(retriesLeft: Int?) async -> String? {
        await endTouchPrompt()
        pinRequests += 1
        let tries = retriesLeft.map { " (\($0) \($0 == 1 ? "try" : "tries") left)" } ?? ""
        if pinRequests == 1 {
            console.say("Your fingerprint or face was not recognized, or this authenticator has none: use the PIN.")
        }
        return await console.readLine("Authenticator PIN\(tries): ", secret: true)
    }

    func chooseNewPIN(minimumLength: Int) async -> String? {
        await endTouchPrompt()
        return await console.readLine(
            "This site needs a PIN on your authenticator. New PIN (at least \(minimumLength) characters): ",
            secret: true)
    }

    func confirm(_ message: String) async -> Bool {
        await endTouchPrompt()
        console.say("\(message) [Enter = yes, Esc = no]")
        return await console.confirm()
    }

    /// A registration is confirmed as before; a sign-in's consent is the touch the demo asks for
    /// next ("Touch your authenticator…"), as a hardware key's is: one question, not two.
    func approve(_ consent: Consent) async -> Bool {
        guard case .registration = consent else { return true }
        return await confirm(consent.question)
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
        // Its key read ends with the cancellation (Keyboard.next), and only its own read.
        touchPrompt.cancel()
    }
}
