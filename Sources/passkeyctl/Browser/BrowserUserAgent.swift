import CTAP
import PasskeyClient
import WebAuthn

/// The person behind the browser, asked over the native-messaging port: the account chooser
/// (`choose`), conditional mediation's suggestions (`suggest`) and the PIN dialog (`pin`) are the
/// extension's UI, and progress goes out as `status`. One per request, so every question names
/// the page's request.
struct BrowserUserAgent: UserAgent {
    let request: String
    /// The RP ID the request names (or its origin's domain), shown in the PIN dialog.
    let rpID: String
    let port: BrowserPort
    let choosers: Choosers

    func chooseCredential(from choices: [CredentialChoice], rpID: String) async -> CredentialChoice? {
        await ask(choices, rpID: rpID, conditional: false)
    }

    /// Waits until the person picks a suggestion; cancelling the request (abort) ends the wait.
    func offerSuggestions(_ choices: [CredentialChoice], rpID: String) async -> CredentialChoice? {
        await ask(choices, rpID: rpID, conditional: true)
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

    /// The touch on the authenticator is the consent a browser asks for; there is no extra dialog.
    func confirm(_ message: String) async -> Bool { true }

    func show(_ status: KeepaliveStatus) async {
        port.send(.status(request: request, status: status == .userPresenceNeeded ? "upNeeded" : "processing"))
    }
}
