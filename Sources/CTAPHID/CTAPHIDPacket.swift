/// One 64-byte CTAPHID report (CTAP 2.1 §11.2.4, "Message and packet structure").
///
/// An initialization packet starts a message: CID, command byte with bit 7 set,
/// the total payload length (BCNT, big-endian) and up to 57 payload bytes. A
/// continuation packet carries the CID, a sequence number 0…127 (bit 7 clear)
/// and up to 59 more bytes. Unused trailing bytes are zero.
public enum CTAPHIDPacket: Sendable, Hashable {
    case initialization(channel: UInt32, command: CTAPHIDCommand, length: UInt16, data: [UInt8])
    case continuation(channel: UInt32, sequence: UInt8, data: [UInt8])

    /// The report size of a full-speed USB HID device (§11.2.4).
    public static let size = 64
    /// Payload bytes in an initialization packet: 64 − 7.
    public static let initializationCapacity = 57
    /// Payload bytes in a continuation packet: 64 − 5.
    public static let continuationCapacity = 59
    /// The last sequence number; sequences run 0…127 (§11.2.4).
    public static let maxSequence: UInt8 = 0x7F
    /// The largest message: one initialization packet and 128 continuation packets.
    public static let maxMessageLength = initializationCapacity + 128 * continuationCapacity

    /// Why a report could not be read as a packet.
    public enum ParseError: Error, Sendable, Equatable {
        /// A report must be exactly 64 bytes.
        case wrongSize(Int)
    }

    public var channel: UInt32 {
        switch self {
        case .initialization(let channel, _, _, _), .continuation(let channel, _, _): return channel
        }
    }

    /// Reads a report. Every 64-byte report is some packet; whether it makes
    /// sense is the reassembler's and the device's to judge. `data` holds every
    /// payload byte the report has room for, padding included.
    public init(report: some Collection<UInt8>) throws(ParseError) {
        guard report.count == Self.size else { throw .wrongSize(report.count) }
        let bytes = Array(report)
        let channel = UInt32(bytes[0]) << 24 | UInt32(bytes[1]) << 16 | UInt32(bytes[2]) << 8 | UInt32(bytes[3])
        if bytes[4] & 0x80 != 0 {
            let length = UInt16(bytes[5]) << 8 | UInt16(bytes[6])
            self = .initialization(
                channel: channel, command: CTAPHIDCommand(rawValue: bytes[4]), length: length, data: Array(bytes[7...]))
        } else {
            self = .continuation(channel: channel, sequence: bytes[4], data: Array(bytes[5...]))
        }
    }

    /// The 64-byte report, zero-padded. Payload beyond the packet's capacity is
    /// a programming error, as is a sequence number above 127.
    public var report: [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(Self.size)
        appendReport(to: &bytes)
        return bytes
    }

    /// Appends the 64-byte report to `bytes`: a message's reports go into one buffer, with no
    /// array per report or per header field.
    public func appendReport(to bytes: inout [UInt8]) {
        let start = bytes.count
        let channel = self.channel
        bytes.append(UInt8(channel >> 24))
        bytes.append(UInt8(channel >> 16 & 0xFF))
        bytes.append(UInt8(channel >> 8 & 0xFF))
        bytes.append(UInt8(channel & 0xFF))
        switch self {
        case .initialization(_, let command, let length, let data):
            precondition(data.count <= Self.initializationCapacity, "initialization packet payload too long")
            bytes.append(0x80 | command.rawValue)
            bytes.append(UInt8(length >> 8))
            bytes.append(UInt8(length & 0xFF))
            bytes.append(contentsOf: data)
        case .continuation(_, let sequence, let data):
            precondition(sequence <= Self.maxSequence, "sequence number above 127")
            precondition(data.count <= Self.continuationCapacity, "continuation packet payload too long")
            bytes.append(sequence)
            bytes.append(contentsOf: data)
        }
        bytes.append(contentsOf: repeatElement(0, count: Self.size - (bytes.count - start)))
    }
}
