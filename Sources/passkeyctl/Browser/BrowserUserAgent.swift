import CTAP
import PasskeyClient
import WebAuthn

/// The person behind the browser, asked over the native-messaging port: the account chooser
/// (`choose`), conditional mediation's suggestions (`suggest`), the consent question (`confirm`)
/// and the PIN dialog (`pin`) are the extension's UI, in a window the extension owns, and progress
/// goes out as `status`. One per request, so every question names the page's request.
struct BrowserUserAgent: UserAgent {
    let request: String
    /// The RP ID the request names (or its origin's domain), shown in the PIN dialog.
    let rpID: String
    let port: BrowserPort
    let choosers: Choosers
    /// Unattended automation (`browser host --automation`): consent is given without asking.
    var automation: Bool = HostMode.automation
    /// The credential a test armed to answer this RP's next conditional request (CONTROLS
    /// `takeConditional`, docs/vendor-commands.md), taken once; nil when none is (the default).
    var armedConditionalAnswer: @Sendable (_ rpID: String) async -> [UInt8]? = { _ in nil }

    func chooseCredential(from choices: [CredentialChoice], rpID: String) async -> CredentialChoice? {
        await ask(choices, rpID: rpID, conditional: false)
    }

    /// Waits until the person picks a suggestion; cancelling the request (abort) ends the wait.
    func offerSuggestions(_ choices: [CredentialChoice], rpID: String) async -> CredentialChoice? {
        // A test's armed answer picks at once, as Chrome's virtual authenticator answers every
        // conditional request unasked; the consent that follows is asked as after any pick.
        if let armed = await armedConditionalAnswer(rpID),
            let choice = choices.first(where: {
                if case .passkey(let account) = $0 { account.credentialID == armed } else { false }
            })
        {
            return choice
        }
        return await ask(choices, rpID: rpID, conditional: true)
    }

    private func ask(_ choices: [CredentialChoice], rpID: String, conditional: Bool) async -> CredentialChoice? {
        let entries = choices.map(Self.entry)
        let index = await choosers.ask(count: entries.count) { id in
            port.send(
                .question(id: id, request: request, rpId: rpID, .choose(entries: entries, conditional: conditional)))
        }
        return index.map { choices[$0] }
    }

    static func entry(_ choice: CredentialChoice) -> HostMessage.ChooserEntry {
        switch choice {
        case .passkey(let account):
            return .init(
                label: choice.label, displayName: account.displayName,
                credentialId: Base64URL.encode(account.credentialID))
        case .password:
            return .init(label: choice.label, displayName: nil, credentialId: nil)
        }
    }

    /// The extension's PIN dialog (`pin`), with the tries the authenticator has left; asked again
    /// after a wrong PIN. The PIN goes to the authenticator only, never to a log.
    func enterPIN(retriesLeft: Int?) async -> String? {
        await choosers.askPIN { id in
            port.send(.question(id: id, request: request, rpId: rpID, .pin(retriesLeft: retriesLeft)))
        }
    }

    /// Never offered: setting a PIN is the authenticator's owner's act (`passkeyctl pin set`),
    /// not a step a page's ceremony may start, and the extension has no dialog to choose and
    /// confirm one. A site that requires user verification from a device without a PIN gets
    /// NotAllowedError's constraint sentence.
    func chooseNewPIN(minimumLength: Int) async -> String? { nil }

    /// The person's consent to a ceremony, asked once the account is known (WebAuthn L3 §5.1.3
    /// step 20, §5.1.4.1 step 18: "user consent" is the client's to obtain): the extension's
    /// window names the site and the account, and only its Sign in / Create button approves.
    /// Dismissed, cancelled, closed or timed out is a refusal (NotAllowedError). Under
    /// `--automation` no one is there to ask, so consent is given at once.
    func approve(_ consent: Consent) async -> Bool {
        if automation { return true }
        let index = await choosers.ask(count: 1) { id in
            port.send(.question(id: id, request: request, rpId: consent.rpID, .confirm(consent)))
        }
        return index == 0
    }

    /// A bare confirmation has no site nor account to name, so it is asked as a sign-in's
    /// consent without an account: the person still sees the site and the ceremony.
    func confirm(_ message: String) async -> Bool {
        await approve(.signIn(rpID: rpID, account: nil))
    }

    func show(_ status: KeepaliveStatus) async {
        port.send(.status(request: request, status: status == .userPresenceNeeded ? "upNeeded" : "processing"))
    }
}
