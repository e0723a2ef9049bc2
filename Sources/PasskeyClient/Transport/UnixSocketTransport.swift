import CTAP
import CTAPHID
import PasskeydConcurrency
import PasskeydLocal

/// A CTAPHID host on passkeyd's Unix socket: the socket is one open handle on a
/// virtual USB HID device carrying 64-byte reports (CTAP 2.1 §11.2).
///
/// It allocates a channel with CTAPHID_INIT, fragments and reassembles messages,
/// reports keepalives, relays task cancellation as CTAPHID_CANCEL (and still waits
/// for the device's answer), times out a silent device, and reconnects after the
/// daemon restarts.
///
/// It does the socket's I/O itself, on the calling task's thread: the request's reports go
/// out in one send(2), and the reply is read as `ReportReader` describes (a poll(2) of at
/// most 1 ms on the caller's thread, then a suspension holding no thread). A reply therefore costs the daemon's
/// wake-up and ours, as a blocking C client's does, and no hand-off to an event loop and
/// back (docs/benchmarks.md, "PasskeyClient's socket path").
public actor UnixSocketTransport: CTAPTransport {
    /// The socket's path.
    public nonisolated let path: String
    /// How long the device may stay silent (no reply, no keepalive) before `.timeout`.
    public nonisolated let silenceTimeout: Duration

    private var connection: Connection?
    private var transactions = TurnQueue()

    private struct Connection {
        let socket: ReportSocket
        let cid: UInt32
        let reader: ReportReader
        /// What CTAPHID_INIT's capability flags said the device serves.
        var capabilities: CTAPHIDCapabilities = [.cbor]
    }

    /// A transport for the socket at `path`, by default where passkeyd puts it (`$PASSKEYD_SOCKET`,
    /// else `$XDG_RUNTIME_DIR/passkeyd/ctaphid.sock`, else `/tmp/passkeyd-$UID/ctaphid.sock`).
    /// Nothing is connected until the first request, which first checks that the socket is the
    /// user's own daemon's.
    public init(path: String = PasskeydSocket.defaultPath(), silenceTimeout: Duration = .seconds(5)) {
        self.path = path
        self.silenceTimeout = silenceTimeout
    }

    /// One CTAPHID_CBOR transaction on this transport's channel, connecting first if needed.
    public func send(_ message: [UInt8], keepalive: @escaping @Sendable (KeepaliveStatus) -> Void)
        async throws(TransportError) -> [UInt8]
    {
        try await transact(command: .cbor, payload: message, keepalive: keepalive)
    }

    /// One CTAPHID_MSG transaction (CTAP 2.1 §11.2.9.1.1): a CTAP1/U2F command APDU in, the
    /// response APDU out.
    public func sendAPDU(_ apdu: [UInt8], keepalive: @escaping @Sendable (KeepaliveStatus) -> Void)
        async throws(TransportError) -> [UInt8]
    {
        try await transact(command: .msg, payload: apdu, keepalive: keepalive)
    }

    /// The protocols CTAPHID_INIT's capability flags name (CTAP 2.1 §11.2.9.1.3): CTAP2 when
    /// CBOR is set, CTAP1/U2F unless NMSG is. Connects first if needed.
    public func protocols() async throws(TransportError) -> CTAPProtocols {
        await beginTransaction()
        defer { endTransaction() }
        let capabilities = try await connected().capabilities
        var protocols: CTAPProtocols = []
        if capabilities.contains(.cbor) { protocols.insert(.ctap2) }
        if !capabilities.contains(.nmsg) { protocols.insert(.ctap1) }
        return protocols
    }

    /// passkeyd's REPLUG vendor command: the device's volatile state starts afresh.
    public func replug() async throws(TransportError) {
        _ = try await vendor(.replug, payload: [])
    }

    /// Sends one of passkeyd's vendor commands (docs/vendor-commands.md) and returns its reply payload.
    public func vendor(_ command: VendorCommand, payload: [UInt8]) async throws(TransportError) -> [UInt8] {
        try await transact(command: command.command, payload: payload, keepalive: { _ in })
    }

    /// Sends a vendor command that answers with a stream (WATCH, docs/vendor-commands.md), calls
    /// `subscribed` once its first reply came, and hands each later message to `receive`, until the
    /// daemon closes the connection (`.disconnected`) or the calling task is cancelled (a normal
    /// return). The transport serves nothing else meanwhile; the daemon may stay silent as long as it likes.
    public func subscribe(
        _ command: VendorCommand, payload: [UInt8], subscribed: @Sendable () -> Void = {},
        receive: @Sendable ([UInt8]) async -> Void
    ) async throws(TransportError) {
        _ = try await vendor(command, payload: payload)
        subscribed()
        await beginTransaction()
        defer { endTransaction() }
        guard let connection else { throw .disconnected }
        while !Task.isCancelled {
            let message: [UInt8]
            do {
                message = try await readReply(
                    from: connection.reader, channel: connection.cid, to: command.command, keepalive: { _ in },
                    silenceTimeout: nil, wait: .stream)
            } catch {
                if Task.isCancelled { break }
                await close()
                throw error
            }
            await receive(message)
        }
        await close()
    }

    /// Closes the connection; the next request opens a new one.
    public func close() async {
        connection?.socket.shutdown()
        connection = nil
    }

    /// One request and its answer on our channel, serialised with any other caller.
    private func transact(
        command: CTAPHIDCommand, payload: [UInt8],
        keepalive: @escaping @Sendable (KeepaliveStatus) -> Void
    ) async throws(TransportError) -> [UInt8] {
        guard payload.count <= CTAPHIDPacket.maxMessageLength else {
            throw .protocolViolation("message longer than 7609 bytes")
        }
        await beginTransaction()
        defer { endTransaction() }
        let deadline = ContinuousClock.now + silenceTimeout
        // Busy retries back off from 0.2 ms to 5 ms: the device is often free again within a
        // fraction of a millisecond (it takes the next transaction while the last one's
        // answer waits for the store's flush), and a long first wait would idle it.
        var backoff = Duration.microseconds(200)
        while true {
            let connection = try await connected()
            let result = await exchange(
                on: connection, command: command, payload: payload, keepalive: keepalive, cancellable: true)
            switch result {
            case .success(let reply):
                return reply
            case .failure(.deviceError(CTAPHIDError.channelBusy.rawValue))
            where !Task.isCancelled && ContinuousClock.now < deadline:
                // Another handle's transaction holds the device (CTAP 2.1 §11.2.9): retry, as hosts do.
                try? await Task.sleep(for: backoff)
                backoff = min(backoff * 2, .milliseconds(5))
            case .failure(let error):
                // After a framing failure or a silent device the channel state is unknown: start afresh.
                await close()
                throw error
            }
        }
    }

    /// Writes a request on `connection` and reads its reply. When `cancellable`, cancelling the
    /// calling task sends CTAPHID_CANCEL and the read goes on until the device answers (§11.2.9.1.5).
    private func exchange(
        on connection: Connection, command: CTAPHIDCommand, payload: [UInt8],
        keepalive: @escaping @Sendable (KeepaliveStatus) -> Void, cancellable: Bool
    ) async -> Result<[UInt8], TransportError> {
        do {
            try connection.socket.send(
                CTAPHIDMessage(channel: connection.cid, command: command, payload: payload).reports)
        } catch {
            return .failure(error)
        }
        guard cancellable else { return await reply(on: connection, to: command, keepalive: keepalive) }
        // Sent after the request is out, from the cancelling thread; the read goes on until the device answers.
        let socket = connection.socket
        let cancel = CTAPHIDMessage(channel: connection.cid, command: .cancel).reports
        return await withTaskCancellationHandler {
            await reply(on: connection, to: command, keepalive: keepalive)
        } onCancel: {
            socket.sendWithoutWaiting(cancel)
        }
    }

    private func reply(
        on connection: Connection, to command: CTAPHIDCommand,
        keepalive: @escaping @Sendable (KeepaliveStatus) -> Void
    ) async -> Result<[UInt8], TransportError> {
        do {
            return .success(
                try await readReply(
                    from: connection.reader, channel: connection.cid, to: command, keepalive: keepalive,
                    silenceTimeout: silenceTimeout))
        } catch {
            return .failure(error)
        }
    }

    /// Reads until the reply to `command` on our channel, passing keepalives on; a device
    /// silent for longer than `silenceTimeout` (if given) is `.timeout`.
    private func readReply(
        from reader: ReportReader, channel: UInt32,
        to command: CTAPHIDCommand, keepalive: @escaping @Sendable (KeepaliveStatus) -> Void,
        silenceTimeout: Duration?, wait: ReportReader.Wait = .reply
    ) async throws(TransportError) -> [UInt8] {
        var reassembler = CTAPHIDReassembler(onlyChannel: channel)
        var lastHeard = ContinuousClock.now
        var wait = wait
        while true {
            guard let item = await reader.next(wait) else { throw .disconnected }
            let report: ArraySlice<UInt8>
            switch item {
            case .tick:
                if let silenceTimeout, ContinuousClock.now - lastHeard > silenceTimeout { throw .timeout }
                // A stream's reader ends with its task; the caller sees the cancellation.
                if wait == .stream, Task.isCancelled { throw .disconnected }
                continue
            case .report(let bytes):
                report = bytes
                lastHeard = ContinuousClock.now
            }
            let packet: CTAPHIDPacket
            do { packet = try CTAPHIDPacket(report: report) } catch { throw .protocolViolation("malformed report") }
            switch reassembler.accept(packet) {
            case .incomplete, .ignored:
                continue
            case .failed(_, let error):
                throw .protocolViolation("reply broke the framing rules: \(error.specName)")
            case .complete(let message):
                if message.command == .keepalive {
                    if let status = message.payload.first.flatMap(KeepaliveStatus.init(rawValue:)) { keepalive(status) }
                    // The answer is tens of milliseconds away at least: no more blocking a pool thread for it.
                    if wait == .reply { wait = .slowReply }
                    continue
                }
                if message.command == .error { throw .deviceError(message.payload.first ?? 0x7F) }
                guard message.command == command else {
                    throw .protocolViolation("reply to \(message.command), expected \(command)")
                }
                return message.payload
            }
        }
    }

    /// The open connection, or a new one with a freshly allocated channel (CTAP 2.1 §11.2.9.1.3).
    private func connected() async throws(TransportError) -> Connection {
        if let connection, !connection.socket.hasEnded { return connection }
        await close()
        let socket = try ReportSocket.connect(to: path, sendTimeout: silenceTimeout)
        // Before the first byte: only our own daemon, in a folder nobody else controls, hears us.
        if let refusal = SocketFolder.refusal(forSocket: path)
            ?? SocketFolder.refusal(forSocket: path, servedBy: socket.peerUID)
        {
            socket.shutdown()
            throw .untrusted(refusal)
        }
        let reader = ReportReader(socket)
        var nonce = [UInt8](repeating: 0, count: CTAPHIDInitResponse.nonceLength)
        for i in nonce.indices { nonce[i] = UInt8.random(in: 0...255) }
        let broadcast = Connection(socket: socket, cid: CTAPHIDChannel.broadcast, reader: reader)
        let result = await exchange(
            on: broadcast, command: .`init`, payload: nonce, keepalive: { _ in }, cancellable: false)
        guard case .success(let payload) = result,
            let response = CTAPHIDInitResponse(payload: payload), response.nonce == nonce,
            CTAPHIDChannel.isAllocatable(response.channel)
        else {
            socket.shutdown()
            if case .failure(let error) = result { throw error }
            throw .protocolViolation("CTAPHID_INIT answered without our nonce or with an unusable channel")
        }
        let connection = Connection(
            socket: socket, cid: response.channel, reader: reader, capabilities: response.capabilities)
        self.connection = connection
        return connection
    }

    private func beginTransaction() async {
        if !transactions.tryEnter() { await withCheckedContinuation { transactions.wait($0) } }
    }

    private func endTransaction() {
        transactions.leave()
    }
}
