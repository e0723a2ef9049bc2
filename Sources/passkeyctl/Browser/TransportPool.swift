import PasskeyClient

/// Connections to passkeyd kept for the host's next requests. A request borrows one while it
/// talks to the authenticator and gives it back while it waits for the person
/// (`CeremonyTransport`; a getNextAssertion run belongs to one CTAPHID channel, CTAP 2.1 §6.3,
/// and never spans a wait), and the next exchange reuses it instead of connecting and allocating
/// a channel again. As many connections are open as requests are talking at that moment.
actor TransportPool {
    let socket: String
    private var idle: [UnixSocketTransport] = []
    /// Enough for a few tabs signing in at once; more are closed when given back.
    private let keep = 4

    init(socket: String) {
        self.socket = socket
    }

    func take() -> UnixSocketTransport {
        idle.popLast() ?? UnixSocketTransport(path: socket)
    }

    func give(_ transport: UnixSocketTransport) async {
        if idle.count < keep { idle.append(transport) } else { await transport.close() }
    }

    /// Whether passkeyd answers its STATUS vendor command on the socket (`ping`).
    func daemonAnswers() async -> Bool {
        let transport = take()
        let answered = (try? await transport.vendor(.status, payload: [])) != nil
        await give(transport)
        return answered
    }
}
