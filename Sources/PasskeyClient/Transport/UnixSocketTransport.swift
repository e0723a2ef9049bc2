import CTAP
import CTAPHID
import Foundation
import NIOCore
import NIOPosix

/// A CTAPHID host on passkeyd's Unix socket: the socket is one open handle on a
/// virtual USB HID device carrying 64-byte reports (CTAP 2.1 §11.2).
///
/// It allocates a channel with CTAPHID_INIT, fragments and reassembles messages,
/// reports keepalives, relays task cancellation as CTAPHID_CANCEL (and still waits
/// for the device's answer), times out a silent device, and reconnects after the
/// daemon restarts.
public actor UnixSocketTransport: CTAPTransport {
    public nonisolated let path: String
    /// How long the device may stay silent (no reply, no keepalive) before `.timeout`.
    public nonisolated let silenceTimeout: Duration

    private var connection: Connection?
    private var transactions = TurnQueue()

    private struct Connection {
        let channel: any Channel
        let cid: UInt32
        let reader: ReportReader
        let ticker: Task<Void, Never>
    }

    public init(path: String = PasskeydSocket.defaultPath(), silenceTimeout: Duration = .seconds(5)) {
        self.path = path
        self.silenceTimeout = silenceTimeout
    }

    public func send(_ message: [UInt8], keepalive: @escaping @Sendable (KeepaliveStatus) -> Void) async throws(TransportError) -> [UInt8] {
        try await transact(command: .cbor, payload: message, keepalive: keepalive)
    }

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
    public func subscribe(_ command: VendorCommand, payload: [UInt8], subscribed: @Sendable () -> Void = {},
                          receive: @Sendable ([UInt8]) async -> Void) async throws(TransportError) {
        _ = try await vendor(command, payload: payload)
        subscribed()
        await beginTransaction()
        defer { endTransaction() }
        guard let connection else { throw .disconnected }
        while !Task.isCancelled {
            let message: [UInt8]
            do {
                message = try await readReply(from: connection.reader, channel: connection.cid, to: command.command, keepalive: { _ in }, silenceTimeout: nil)
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
        if let connection {
            connection.ticker.cancel()
            try? await connection.channel.close()
        }
        connection = nil
    }

    /// One request and its answer on our channel, serialised with any other caller.
    private func transact(command: CTAPHIDCommand, payload: [UInt8],
                          keepalive: @escaping @Sendable (KeepaliveStatus) -> Void) async throws(TransportError) -> [UInt8] {
        guard payload.count <= CTAPHIDPacket.maxMessageLength else { throw .protocolViolation("message longer than 7609 bytes") }
        await beginTransaction()
        defer { endTransaction() }
        let deadline = ContinuousClock.now + silenceTimeout
        // Busy retries back off from 0.2 ms to 5 ms: the device is often free again within a
        // fraction of a millisecond (it takes the next transaction while the last one's
        // answer waits for the store's flush), and a long first wait would idle it.
        var backoff = Duration.microseconds(200)
        while true {
            let connection = try await connected()
            // The exchange runs unstructured so a cancelled caller still waits for the device to confirm.
            let exchange = Task { await self.exchange(command: command, payload: payload, keepalive: keepalive) }
            let result = await withTaskCancellationHandler {
                await exchange.value
            } onCancel: {
                let cancel = CTAPHIDMessage(channel: connection.cid, command: .cancel).reports
                connection.channel.writeAndFlush(ByteBuffer(bytes: cancel), promise: nil)
            }
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

    /// Writes a request on the current connection and reads its reply.
    private func exchange(command: CTAPHIDCommand, payload: [UInt8],
                          keepalive: @escaping @Sendable (KeepaliveStatus) -> Void) async -> Result<[UInt8], TransportError> {
        guard let connection else { return .failure(.disconnected) }
        let request = CTAPHIDMessage(channel: connection.cid, command: command, payload: payload)
        // Not awaited: a write that fails closes the channel, which ends the reply's read as
        // `.disconnected`; waiting for the event loop to confirm would cost a wake-up per message.
        connection.channel.writeAndFlush(ByteBuffer(bytes: request.reports), promise: nil)
        do {
            return .success(try await readReply(from: connection.reader, channel: connection.cid, to: command, keepalive: keepalive, silenceTimeout: silenceTimeout))
        } catch {
            return .failure(error)
        }
    }

    /// Reads until the reply to `command` on our channel, passing keepalives on; a device
    /// silent for longer than `silenceTimeout` (if given) is `.timeout`.
    private func readReply(from reader: ReportReader, channel: UInt32,
                           to command: CTAPHIDCommand, keepalive: @escaping @Sendable (KeepaliveStatus) -> Void,
                           silenceTimeout: Duration?) async throws(TransportError) -> [UInt8] {
        var reassembler = CTAPHIDReassembler(onlyChannel: channel)
        var lastHeard = ContinuousClock.now
        while true {
            guard let item = await reader.next() else { throw .disconnected }
            let report: ArraySlice<UInt8>
            switch item {
            case .tick:
                if let silenceTimeout, ContinuousClock.now - lastHeard > silenceTimeout { throw .timeout }
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
                    continue
                }
                if message.command == .error { throw .deviceError(message.payload.first ?? 0x7F) }
                guard message.command == command else { throw .protocolViolation("reply to \(message.command), expected \(command)") }
                return message.payload
            }
        }
    }

    /// The open connection, or a new one with a freshly allocated channel (CTAP 2.1 §11.2.9.1.3).
    private func connected() async throws(TransportError) -> (channel: any Channel, cid: UInt32) {
        if let connection, connection.channel.isActive { return (connection.channel, connection.cid) }
        await close()
        let (stream, continuation) = AsyncStream.makeStream(of: ReportStreamHandler.Event.self)
        let channel: any Channel
        do {
            channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(ReportStreamHandler(continuation: continuation))
                    }
                }
                .connect(unixDomainSocketPath: path).get()
        } catch {
            continuation.finish()
            throw .unreachable(path)
        }
        // Before the first byte: only our own daemon, in a folder nobody else controls, hears us.
        if let refusal = await Self.refusal(of: channel, path: path) {
            try? await channel.close()
            continuation.finish()
            throw .untrusted(refusal)
        }
        let ticker = Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: .milliseconds(100))
                continuation.yield(.tick)
            }
        }
        let reader = ReportReader(stream)
        connection = Connection(channel: channel, cid: CTAPHIDChannel.broadcast, reader: reader, ticker: ticker)
        var nonce = [UInt8](repeating: 0, count: CTAPHIDInitResponse.nonceLength)
        for i in nonce.indices { nonce[i] = UInt8.random(in: 0...255) }
        let result = await exchange(command: .`init`, payload: nonce, keepalive: { _ in })
        guard case .success(let payload) = result,
              let response = CTAPHIDInitResponse(payload: payload), response.nonce == nonce,
              CTAPHIDChannel.isAllocatable(response.channel)
        else {
            await close()
            if case .failure(let error) = result { throw error }
            throw .protocolViolation("CTAPHID_INIT answered without our nonce or with an unusable channel")
        }
        connection = Connection(channel: channel, cid: response.channel, reader: reader, ticker: ticker)
        return (channel, response.channel)
    }

    /// Why this connection is not to be trusted with a byte, if it is not.
    private static func refusal(of channel: any Channel, path: String) async -> String? {
        if let refusal = SocketFolder.refusal(forSocket: path) { return refusal }
        let peer = try? await (channel as? any SocketOptionProvider)?.unsafeGetSocketOption(
            level: SocketOptionLevel(SOL_SOCKET), name: SocketOptionName(SO_PEERCRED)).get() as PeerCredentials?
        return SocketFolder.refusal(forSocket: path, servedBy: peer?.uid)
    }

    private func beginTransaction() async {
        if !transactions.tryEnter() { await withCheckedContinuation { transactions.wait($0) } }
    }

    private func endTransaction() {
        transactions.leave()
    }
}
