import PasskeydMacros

/// A command APDU (ISO 7816-4 §5.1), short or extended length, as CTAPHID_MSG carries it
/// (CTAP 2.1 §11.2.9.1.1; FIDO U2F Raw Message Formats §3.1). Parsed at the edge: the
/// authenticator never sees the raw bytes.
@MemberwiseInit
public struct CommandAPDU: Sendable, Equatable {
    public var cla: UInt8 = 0
    public var ins: UInt8
    public var p1: UInt8 = 0
    public var p2: UInt8 = 0
    /// The command data (Nc bytes; empty when Lc is absent).
    public var data: [UInt8] = []
    /// Ne, the most response bytes the host takes; nil when Le is absent. Le 0 means the
    /// largest count (256 short, 65536 extended).
    public var maxResponseLength: Int?

    /// Reads the four cases of ISO 7816-4 §5.1 in both encodings. A body whose lengths do
    /// not account for its bytes exactly is `SW_WRONG_LENGTH`.
    public init(bytes: [UInt8]) throws(StatusWord) {
        guard bytes.count >= 4 else { throw .wrongLength }
        cla = bytes[0]
        ins = bytes[1]
        p1 = bytes[2]
        p2 = bytes[3]
        let body = Array(bytes[4...])
        switch body.count {
        case 0:
            // Case 1: no data, no Le.
            data = []
            maxResponseLength = nil
        case 1:
            // Case 2 short: Le only.
            data = []
            maxResponseLength = body[0] == 0 ? 256 : Int(body[0])
        default:
            if body[0] != 0 {
                // Cases 3 and 4 short: Lc (1 byte), data, optionally Le (1 byte).
                let lc = Int(body[0])
                guard body.count == 1 + lc || body.count == 2 + lc else { throw .wrongLength }
                data = Array(body[1..<(1 + lc)])
                maxResponseLength = body.count == 2 + lc ? (body[1 + lc] == 0 ? 256 : Int(body[1 + lc])) : nil
            } else if body.count == 3 {
                // Case 2 extended: 0 ‖ Le (2 bytes).
                data = []
                maxResponseLength = Self.extendedLe(body[1], body[2])
            } else {
                // Cases 3 and 4 extended: 0 ‖ Lc (2 bytes), data, optionally Le (2 bytes). Lc 0
                // followed by Le is what python-fido2 and libfido2 send for U2F_VERSION.
                guard body.count >= 3 else { throw .wrongLength }
                let lc = Int(body[1]) << 8 | Int(body[2])
                guard body.count == 3 + lc || body.count == 5 + lc else { throw .wrongLength }
                data = Array(body[3..<(3 + lc)])
                maxResponseLength = body.count == 5 + lc ? Self.extendedLe(body[3 + lc], body[4 + lc]) : nil
            }
        }
    }

    private static func extendedLe(_ high: UInt8, _ low: UInt8) -> Int {
        let le = Int(high) << 8 | Int(low)
        return le == 0 ? 65536 : le
    }

    /// The extended-length encoding (what python-fido2 and libfido2 send), Le included
    /// when `maxResponseLength` is set.
    public var bytes: [UInt8] {
        var out = [cla, ins, p1, p2]
        if !data.isEmpty {
            out += [0, UInt8(data.count >> 8), UInt8(data.count & 0xFF)] + data
        }
        if let maxResponseLength {
            let le = maxResponseLength == 65536 ? 0 : maxResponseLength
            out += (data.isEmpty ? [0] : []) + [UInt8(le >> 8 & 0xFF), UInt8(le & 0xFF)]
        }
        return out
    }
}
