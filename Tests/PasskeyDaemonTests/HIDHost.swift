import CTAP
import CTAPHID

/// The host's side of CTAPHID for the tests, over whatever carries the reports: the socket
/// (`HIDTestClient`) or an in-memory channel (`EmbeddedHost`).
protocol HIDHost: AnyObject {
    func send(raw bytes: [UInt8]) async throws
    /// The next 64-byte report the device sent.
    func readReport() async throws -> CTAPHIDPacket
}

extension HIDHost {
    func send(_ message: CTAPHIDMessage) async throws {
        try await send(raw: message.reports)
    }

    /// The next whole message on `channel`, KEEPALIVEs included.
    func readMessage(channel: UInt32) async throws -> CTAPHIDMessage {
        var reassembler = CTAPHIDReassembler(onlyChannel: channel)
        while true {
            if case .complete(let message) = reassembler.accept(try await readReport()) { return message }
        }
    }

    /// The next message on `channel` that is not a KEEPALIVE.
    func readReply(channel: UInt32) async throws -> CTAPHIDMessage {
        while true {
            let message = try await readMessage(channel: channel)
            if message.command != .keepalive { return message }
        }
    }

    /// Reads until a KEEPALIVE with `status` arrives on `channel`.
    func awaitKeepalive(_ status: KeepaliveStatus, channel: UInt32) async throws {
        while true {
            let message = try await readMessage(channel: channel)
            if message.command == .keepalive, message.payload == [status.rawValue] { return }
        }
    }

    /// INIT on the broadcast channel (allocates one) or on `channel` (resynchronises it);
    /// returns the channel the device answered with.
    func initialize(nonce: [UInt8] = [1, 2, 3, 4, 5, 6, 7, 8], channel: UInt32 = CTAPHIDChannel.broadcast) async throws
        -> UInt32
    {
        try await send(CTAPHIDMessage(channel: channel, command: .`init`, payload: nonce))
        let reply = try await readReply(channel: channel)
        guard let response = CTAPHIDInitResponse(payload: reply.payload), response.nonce == nonce else {
            throw HIDHostError.unexpectedReply(reply)
        }
        return response.channel
    }

    /// Sends a request and returns the non-KEEPALIVE reply.
    func transact(_ message: CTAPHIDMessage) async throws -> CTAPHIDMessage {
        try await send(message)
        return try await readReply(channel: message.channel)
    }
}

enum HIDHostError: Error {
    case unexpectedReply(CTAPHIDMessage)
}
