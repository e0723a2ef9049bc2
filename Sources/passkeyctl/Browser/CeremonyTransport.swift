import CTAP
import PasskeyClient

/// The transport one browser request uses: a connection to passkeyd borrowed from the host's
/// `TransportPool` while the request talks to the authenticator, and given back while it waits
/// for the person (a chooser, suggestions, a PIN dialog, a consent), so a page that leaves a
/// thousand requests waiting holds no daemon connection (issue 40, item 5).
///
/// Giving it back between two messages is safe because no question is asked inside a run of
/// commands the daemon ties to one connection (getNextAssertion after getAssertion, CTAP 2.1
/// §6.3; credential enumeration, §6.8): each run completes before the person is asked. What
/// outlives a connection is the authenticator's own: a pinUvAuthToken belongs to the device,
/// not to a channel (CTAP 2.1 §6.5.5.7), so a token obtained before a chooser still works after it.
actor CeremonyTransport: CTAPTransport {
    private let pool: TransportPool
    private var lent: UnixSocketTransport?

    init(pool: TransportPool) {
        self.pool = pool
    }

    func send(_ message: [UInt8], keepalive: @escaping @Sendable (KeepaliveStatus) -> Void)
        async throws(TransportError) -> [UInt8]
    {
        try await borrowed().send(message, keepalive: keepalive)
    }

    func replug() async throws(TransportError) {
        try await borrowed().replug()
    }

    func protocols() async throws(TransportError) -> CTAPProtocols {
        try await borrowed().protocols()
    }

    func sendAPDU(_ apdu: [UInt8], keepalive: @escaping @Sendable (KeepaliveStatus) -> Void)
        async throws(TransportError) -> [UInt8]
    {
        try await borrowed().sendAPDU(apdu, keepalive: keepalive)
    }

    /// Gives the connection back to the pool; the next message borrows one again.
    func release() async {
        guard let transport = lent else { return }
        lent = nil
        await pool.give(transport)
    }

    private func borrowed() async -> UnixSocketTransport {
        if let lent { return lent }
        let transport = await pool.take()
        lent = transport
        return transport
    }
}

/// A user agent that gives the request's connection back before every question that waits for
/// the person, and asks the browser's user agent the question.
struct ReleasingUserAgent: UserAgent {
    let inner: any UserAgent
    let transport: CeremonyTransport

    func chooseCredential(from choices: [CredentialChoice], rpID: String) async -> CredentialChoice? {
        await transport.release()
        return await inner.chooseCredential(from: choices, rpID: rpID)
    }

    func offerSuggestions(_ choices: [CredentialChoice], rpID: String) async -> CredentialChoice? {
        await transport.release()
        return await inner.offerSuggestions(choices, rpID: rpID)
    }

    func enterPIN(retriesLeft: Int?) async -> String? {
        await transport.release()
        return await inner.enterPIN(retriesLeft: retriesLeft)
    }

    func chooseNewPIN(minimumLength: Int) async -> String? {
        await transport.release()
        return await inner.chooseNewPIN(minimumLength: minimumLength)
    }

    func confirm(_ message: String) async -> Bool {
        await transport.release()
        return await inner.confirm(message)
    }

    func approve(_ consent: Consent) async -> Bool {
        await transport.release()
        return await inner.approve(consent)
    }

    /// Progress arrives during a message: the connection is in use, nothing is given back.
    func show(_ status: KeepaliveStatus) async {
        await inner.show(status)
    }
}
