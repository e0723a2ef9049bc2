import PasskeyClient

/// Connections to passkeyd kept for the host's next requests. A ceremony has a connection to
/// itself while it runs (a getNextAssertion run belongs to one CTAPHID channel, CTAP 2.1
/// §6.3), and the next ceremony reuses it instead of connecting and allocating a channel again.
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
