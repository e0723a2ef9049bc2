import CBOR

/// The bytes a platform sent for one member of a request map. A pinUvAuthParam authenticates
/// parameters as the platform encoded them (CTAP 2.1 §6.8, §6.11), and the decoder accepts
/// non-shortest forms, so a re-encoding could differ. Equal to every other: requests compare by
/// what they say, however it was encoded.
public struct ReceivedEncoding: Sendable, Hashable {
    /// Nil for a request built in code.
    public let bytes: [UInt8]?

    public init(_ bytes: [UInt8]? = nil) { self.bytes = bytes }

    public static func == (a: Self, b: Self) -> Bool { true }
    public func hash(into hasher: inout Hasher) {}

    /// Decodes a command's parameter bytes and keeps the encoding of the member at `key`, when present.
    public static func decode(_ message: [UInt8], keeping key: Int) throws(CTAPStatus) -> (
        value: CBORValue, member: ReceivedEncoding
    ) {
        let value: CBORValue
        do { value = try CBORDecoder.decode(message) } catch { throw .invalidCBOR }
        guard value.mapValue?[CBORValue(key)] != nil else { return (value, ReceivedEncoding()) }
        guard let raw = (try? CBORDecoder.mapValueEncodings(message))??[CBORValue(key)] else { throw .invalidCBOR }
        return (value, ReceivedEncoding(raw))
    }
}
