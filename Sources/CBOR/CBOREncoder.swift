/// Encodes values in CTAP2 canonical form (CTAP 2.1 §8, "CTAP2 canonical CBOR
/// encoding form"): shortest integer and length encodings, definite lengths only,
/// and map keys ordered by major type, then encoded length, then bytewise.
///
/// The spec's key rule is equivalent to a bytewise comparison of the keys'
/// encodings for the key types CTAP uses, which is why `100` (`18 64`) sorts
/// before `-1` (`20`): RFC 7049's length-first rule would order them the other way.
public enum CBOREncoder {
    public static func encode(_ value: CBORValue) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(64)
        append(value, to: &out)
        return out
    }

    static func append(_ value: CBORValue, to out: inout [UInt8]) {
        switch value {
        case .unsigned(let n):
            appendHead(major: 0, argument: n, to: &out)
        case .negative(let n):
            appendHead(major: 1, argument: n, to: &out)
        case .byteString(let bytes):
            appendHead(major: 2, argument: UInt64(bytes.count), to: &out)
            out.append(contentsOf: bytes)
        case .textString(let string):
            appendHead(major: 3, argument: UInt64(string.utf8.count), to: &out)
            out.append(contentsOf: string.utf8)
        case .array(let items):
            appendHead(major: 4, argument: UInt64(items.count), to: &out)
            for item in items { append(item, to: &out) }
        case .map(let entries):
            appendHead(major: 5, argument: UInt64(entries.count), to: &out)
            if let numbered = unsignedKeyed(entries) {
                for (key, value) in numbered {
                    appendHead(major: 0, argument: key, to: &out)
                    append(value, to: &out)
                }
                return
            }
            let encoded = entries.map { (key: encode($0.key), value: $0.value) }
                .sorted { canonicalOrder($0.key, $1.key) }
            for entry in encoded {
                out.append(contentsOf: entry.key)
                append(entry.value, to: &out)
            }
        case .boolean(let b):
            out.append(b ? 0xF5 : 0xF4)
        case .null:
            out.append(0xF6)
        case .undefined:
            out.append(0xF7)
        }
    }

    /// Writes a head with the shortest argument encoding (RFC 8949 §4.2.1).
    static func appendHead(major: UInt8, argument: UInt64, to out: inout [UInt8]) {
        let m = major << 5
        switch argument {
        case 0..<24:
            out.append(m | UInt8(argument))
        case 24...0xFF:
            out.append(m | 24)
            out.append(UInt8(argument))
        case 0x100...0xFFFF:
            out.append(m | 25)
            appendBigEndian(argument, byteCount: 2, to: &out)
        case 0x1_0000...0xFFFF_FFFF:
            out.append(m | 26)
            appendBigEndian(argument, byteCount: 4, to: &out)
        default:
            out.append(m | 27)
            appendBigEndian(argument, byteCount: 8, to: &out)
        }
    }

    private static func appendBigEndian(_ value: UInt64, byteCount: Int, to out: inout [UInt8]) {
        for shift in stride(from: (byteCount - 1) * 8, through: 0, by: -8) {
            out.append(UInt8(truncatingIfNeeded: value >> UInt64(shift)))
        }
    }

    /// CTAP 2.1 §8: lower major type first, then shorter encoding, then bytewise.
    /// The entries in canonical order when every key is an unsigned integer (CTAP's command
    /// and response maps): for those the order is numeric (one major type; a longer head is a
    /// larger number; heads of one length compare as the numbers do), so no key is encoded on
    /// its own to be compared. Nil when any key is of another type.
    static func unsignedKeyed(_ entries: [CBORValue: CBORValue]) -> [(key: UInt64, value: CBORValue)]? {
        var numbered: [(key: UInt64, value: CBORValue)] = []
        numbered.reserveCapacity(entries.count)
        for (key, value) in entries {
            guard case .unsigned(let number) = key else { return nil }
            numbered.append((number, value))
        }
        numbered.sort { $0.key < $1.key }
        return numbered
    }

    static func canonicalOrder(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        let majorA = a[0] >> 5
        let majorB = b[0] >> 5
        if majorA != majorB { return majorA < majorB }
        if a.count != b.count { return a.count < b.count }
        return a.lexicographicallyPrecedes(b)
    }
}

extension CBORValue {
    /// This value's CTAP2 canonical encoding.
    public var encoded: [UInt8] { CBOREncoder.encode(self) }
}
