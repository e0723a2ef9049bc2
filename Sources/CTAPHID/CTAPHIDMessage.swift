/// A complete CTAPHID message: a request or a response on one channel
/// (CTAP 2.1 §11.2.4). Turning it into packets is fragmentation; the
/// `CTAPHIDReassembler` does the reverse.
public struct CTAPHIDMessage: Sendable, Hashable {
    public var channel: UInt32
    public var command: CTAPHIDCommand
    public var payload: [UInt8]

    public init(channel: UInt32, command: CTAPHIDCommand, payload: [UInt8] = []) {
        self.channel = channel
        self.command = command
        self.payload = payload
    }

    /// A CTAPHID_ERROR response carrying `error` (§11.2.9.1.6).
    public static func error(_ error: CTAPHIDError, channel: UInt32) -> CTAPHIDMessage {
        CTAPHIDMessage(channel: channel, command: .error, payload: [error.rawValue])
    }

    /// The message split into one initialization packet and as many
    /// continuation packets as the payload needs, sequences counting from 0.
    /// The payload must not exceed `CTAPHIDPacket.maxMessageLength`.
    public var packets: [CTAPHIDPacket] {
        precondition(payload.count <= CTAPHIDPacket.maxMessageLength, "CTAPHID message payload too long")
        let first = min(payload.count, CTAPHIDPacket.initializationCapacity)
        var packets: [CTAPHIDPacket] = [
            .initialization(
                channel: channel, command: command, length: UInt16(payload.count), data: Array(payload[..<first]))
        ]
        var offset = first
        var sequence: UInt8 = 0
        while offset < payload.count {
            let end = min(offset + CTAPHIDPacket.continuationCapacity, payload.count)
            packets.append(.continuation(channel: channel, sequence: sequence, data: Array(payload[offset..<end])))
            offset = end
            sequence += 1
        }
        return packets
    }

    /// The message as 64-byte reports back to back, as written to the device or host.
    public var reports: [UInt8] {
        let packets = packets
        var bytes: [UInt8] = []
        bytes.reserveCapacity(packets.count * CTAPHIDPacket.size)
        for packet in packets { packet.appendReport(to: &bytes) }
        return bytes
    }
}
