import Synchronization

/// How this host process serves its browser: for a person, who approves every ceremony in the
/// extension's own window (docs/browser-protocol.md, "confirm"), or for unattended automation
/// (`passkeyctl browser host --automation`, written into the wrapper script by `passkeyctl
/// browser install --automation`), where no one is there to ask. Set once, by the `host` command,
/// before the first message is read; read by every request's user agent and by `ping`.
enum HostMode {
    private static let unattended = Mutex(false)

    /// True when the install was marked as unattended automation: consent is given at once
    /// (WebAuthn L3 §5.1.3 step 20 leaves user consent to the client, and this client is a test
    /// harness), but a chooser still asks between several accounts and a PIN is still asked.
    static var automation: Bool {
        get { unattended.withLock { $0 } }
        set { unattended.withLock { $0 = newValue } }
    }
}
