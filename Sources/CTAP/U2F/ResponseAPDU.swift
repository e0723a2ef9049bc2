/// A response APDU as a host reads it (ISO 7816-4 §5.1.3; FIDO U2F Raw Message Formats §3.3):
/// the response data, then the two-byte status word. Any status a device may send is kept,
/// whether or not `StatusWord` names it.
public struct ResponseAPDU: Sendable, Equatable {
    /// The bytes before the status word.
    public var data: [UInt8]
    /// SW1 ‖ SW2.
    public var status: UInt16

    /// Reads a CTAPHID_MSG reply; nil when it is shorter than a status word.
    public init?(bytes: [UInt8]) {
        guard bytes.count >= 2 else { return nil }
        data = Array(bytes.dropLast(2))
        status = UInt16(bytes[bytes.count - 2]) << 8 | UInt16(bytes[bytes.count - 1])
    }

    /// The status as one of the words U2F names, if it is one.
    public var statusWord: StatusWord? { StatusWord(rawValue: status) }
}
