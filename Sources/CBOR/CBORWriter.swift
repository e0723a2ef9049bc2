/// Writes CBOR items straight into bytes, in the order the caller gives them, for a
/// structure that knows its own canonical form (CTAP 2.1 §8) and is written on a hot path:
/// no `CBORValue` tree built, no map hashed and sorted, no second copy. The caller owes the
/// canonical key order; a test holds each such writer to `CBOREncoder`'s bytes.
public struct CBORWriter: Sendable {
    public private(set) var bytes: [UInt8]

    /// `prefix` first (a CTAP status byte), then whatever is written.
    public init(prefix: [UInt8] = [], capacity: Int = 64) {
        bytes = prefix
        bytes.reserveCapacity(capacity)
    }

    public mutating func unsigned(_ value: UInt64) {
        CBOREncoder.appendHead(major: 0, argument: value, to: &bytes)
    }

    /// Major type 0 or 1, as `CBORValue(Int)` chooses.
    public mutating func integer(_ value: Int) {
        if value >= 0 {
            CBOREncoder.appendHead(major: 0, argument: UInt64(value), to: &bytes)
        } else {
            // -1 - value, computed without overflowing at Int.min.
            CBOREncoder.appendHead(major: 1, argument: UInt64(-(value + 1)), to: &bytes)
        }
    }

    public mutating func byteString(_ value: [UInt8]) {
        CBOREncoder.appendHead(major: 2, argument: UInt64(value.count), to: &bytes)
        bytes.append(contentsOf: value)
    }

    public mutating func textString(_ value: String) {
        CBOREncoder.appendHead(major: 3, argument: UInt64(value.utf8.count), to: &bytes)
        bytes.append(contentsOf: value.utf8)
    }

    /// The head of a map of `count` entries; its keys and values follow, in canonical order.
    public mutating func mapHeader(count: Int) {
        CBOREncoder.appendHead(major: 5, argument: UInt64(count), to: &bytes)
    }

    public mutating func boolean(_ value: Bool) {
        bytes.append(value ? 0xF5 : 0xF4)
    }

    /// Any value, canonically encoded (`CBOREncoder`).
    public mutating func value(_ value: CBORValue) {
        CBOREncoder.append(value, to: &bytes)
    }
}
