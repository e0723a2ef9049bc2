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

    /// The message as 64-byte reports back to back, as written to the device or host: the
    /// reports of `packets`, written into one buffer (every message sent is framed here, so
    /// no array per packet and per report).
    public var reports: [UInt8] {
        precondition(payload.count <= CTAPHIDPacket.maxMessageLength, "CTAPHID message payload too long")
        let continuations = payload.count <= CTAPHIDPacket.initializationCapacity
            ? 0 : (payload.count - CTAPHIDPacket.initializationCapacity + CTAPHIDPacket.continuationCapacity - 1) / CTAPHIDPacket.continuationCapacity
        var out = [UInt8](repeating: 0, count: (1 + continuations) * CTAPHIDPacket.size)
        out.withUnsafeMutableBufferPointer { out in
            func header(at start: Int) {
                out[start] = UInt8(channel >> 24)
                out[start + 1] = UInt8(channel >> 16 & 0xFF)
                out[start + 2] = UInt8(channel >> 8 & 0xFF)
                out[start + 3] = UInt8(channel & 0xFF)
            }
            header(at: 0)
            out[4] = 0x80 | command.rawValue
            out[5] = UInt8(payload.count >> 8)
            out[6] = UInt8(payload.count & 0xFF)
            let first = min(payload.count, CTAPHIDPacket.initializationCapacity)
            for i in 0..<first { out[7 + i] = payload[i] }
            var offset = first
            for sequence in 0..<continuations {
                let start = (1 + sequence) * CTAPHIDPacket.size
                header(at: start)
                out[start + 4] = UInt8(sequence)
                let end = min(offset + CTAPHIDPacket.continuationCapacity, payload.count)
                for i in offset..<end { out[start + 5 + i - offset] = payload[i] }
                offset = end
            }
        }
        return out
    }
}
