/// Why a byte string is not an acceptable CTAP2 CBOR item.
public enum CBORError: Error, Sendable, Equatable {
    /// The input ended inside an item.
    case truncated
    /// Bytes remain after the single top-level item.
    case trailingBytes
    /// Additional information 31 (indefinite length or "break").
    case indefiniteLength
    /// Additional information 28–30, reserved by RFC 8949 §3.
    case reservedAdditionalInfo
    /// A text string that is not valid UTF-8.
    case invalidUTF8
    /// A map that names the same key twice.
    case duplicateMapKey
    /// More nested arrays and maps than the limit.
    case nestingTooDeep
    /// A length or count that claims more than the bytes left.
    case lengthExceedsInput
    /// A float, a tag, or a simple value other than false/true/null/undefined.
    case unsupportedType
}

/// A strict decoder for untrusted input.
///
/// It never traps and never allocates on a length it has not checked against the
/// bytes that remain. It accepts non-shortest encodings (CTAP 2.1 §8 binds what
/// senders produce, and hosts in the field are not all canonical) but rejects
/// everything RFC 8949 calls malformed and everything CTAP2 does not use.
public struct CBORDecoder {
    /// CTAP 2.1 §8: messages use at most four levels of nested maps and arrays.
    public static let ctapNestingLimit = 4

    private let bytes: [UInt8]
    private var offset = 0
    private let maxDepth: Int

    /// Decodes exactly one item that spans all of `bytes`.
    public static func decode(_ bytes: [UInt8], maxDepth: Int = ctapNestingLimit) throws(CBORError) -> CBORValue {
        var decoder = CBORDecoder(bytes: bytes, maxDepth: maxDepth)
        let value = try decoder.decodeItem(depth: 0)
        guard decoder.offset == bytes.count else { throw .trailingBytes }
        return value
    }

    /// Decodes one item at the start of `bytes` and returns it with how many bytes it took.
    ///
    /// Responses such as authenticator data embed CBOR followed by more fields
    /// (CTAP 2.1 §6.1, attested credential data then extensions).
    public static func decodePrefix(_ bytes: [UInt8], maxDepth: Int = ctapNestingLimit) throws(CBORError) -> (
        value: CBORValue, length: Int
    ) {
        var decoder = CBORDecoder(bytes: bytes, maxDepth: maxDepth)
        let value = try decoder.decodeItem(depth: 0)
        return (value, decoder.offset)
    }

    /// The exact encoded bytes of each value of a top-level map, by key; nil when the item is
    /// not a map. For messages whose MAC covers parameters as sent rather than as re-encoded
    /// (CTAP 2.1 §6.8: subCommandParams), since this decoder accepts non-shortest forms.
    public static func mapValueEncodings(_ bytes: [UInt8], maxDepth: Int = ctapNestingLimit) throws(CBORError)
        -> [CBORValue: [UInt8]]?
    {
        var decoder = CBORDecoder(bytes: bytes, maxDepth: maxDepth)
        let initial = try decoder.readByte()
        guard initial >> 5 == 5 else { return nil }
        guard maxDepth > 0 else { throw .nestingTooDeep }
        let count = try decoder.checkedCount(try decoder.readArgument(initial & 0x1F), minimumItemSize: 2)
        var encodings: [CBORValue: [UInt8]] = [:]
        for _ in 0..<count {
            let key = try decoder.decodeItem(depth: 1)
            let start = decoder.offset
            _ = try decoder.decodeItem(depth: 1)
            guard encodings.updateValue(Array(bytes[start..<decoder.offset]), forKey: key) == nil else {
                throw .duplicateMapKey
            }
        }
        guard decoder.offset == bytes.count else { throw .trailingBytes }
        return encodings
    }

    private init(bytes: [UInt8], maxDepth: Int) {
        self.bytes = bytes
        self.maxDepth = maxDepth
    }

    private var remaining: Int { bytes.count - offset }

    private mutating func readByte() throws(CBORError) -> UInt8 {
        guard offset < bytes.count else { throw .truncated }
        defer { offset += 1 }
        return bytes[offset]
    }

    private mutating func readBytes(_ count: Int) throws(CBORError) -> ArraySlice<UInt8> {
        guard count <= remaining else { throw .lengthExceedsInput }
        defer { offset += count }
        return bytes[offset..<offset + count]
    }

    private mutating func readArgument(_ info: UInt8) throws(CBORError) -> UInt64 {
        let width: Int
        switch info {
        case 0..<24: return UInt64(info)
        case 24: width = 1
        case 25: width = 2
        case 26: width = 4
        case 27: width = 8
        case 31: throw .indefiniteLength
        default: throw .reservedAdditionalInfo
        }
        guard width <= remaining else { throw .truncated }
        var value: UInt64 = 0
        for byte in bytes[offset..<offset + width] { value = value << 8 | UInt64(byte) }
        offset += width
        return value
    }

    /// A length that must fit in what is left, with `minimumItemSize` bytes per element.
    private func checkedCount(_ argument: UInt64, minimumItemSize: Int) throws(CBORError) -> Int {
        guard argument <= UInt64(remaining / minimumItemSize) else { throw .lengthExceedsInput }
        return Int(argument)
    }

    private mutating func decodeItem(depth: Int) throws(CBORError) -> CBORValue {
        let initial = try readByte()
        let major = initial >> 5
        let info = initial & 0x1F
        switch major {
        case 0:
            return .unsigned(try readArgument(info))
        case 1:
            return .negative(try readArgument(info))
        case 2:
            let count = try checkedCount(try readArgument(info), minimumItemSize: 1)
            return .byteString(Array(try readBytes(count)))
        case 3:
            let count = try checkedCount(try readArgument(info), minimumItemSize: 1)
            let utf8 = try readBytes(count)
            // ASCII (nearly every key and RP ID) is valid UTF-8 as it stands: decoded without
            // the generic validation, whose unspecialised code looks up type metadata each time.
            let string: String
            if utf8.allSatisfy({ $0 < 0x80 }) {
                string = String(decoding: utf8, as: UTF8.self)
            } else {
                guard let validated = String(validating: utf8, as: UTF8.self) else { throw .invalidUTF8 }
                string = validated
            }
            return .textString(string)
        case 4:
            guard depth < maxDepth else { throw .nestingTooDeep }
            let count = try checkedCount(try readArgument(info), minimumItemSize: 1)
            var items: [CBORValue] = []
            items.reserveCapacity(count)
            for _ in 0..<count { items.append(try decodeItem(depth: depth + 1)) }
            return .array(items)
        case 5:
            guard depth < maxDepth else { throw .nestingTooDeep }
            let count = try checkedCount(try readArgument(info), minimumItemSize: 2)
            var entries: [CBORValue: CBORValue] = [:]
            entries.reserveCapacity(count)
            for _ in 0..<count {
                let key = try decodeItem(depth: depth + 1)
                let value = try decodeItem(depth: depth + 1)
                guard entries.updateValue(value, forKey: key) == nil else { throw .duplicateMapKey }
            }
            return .map(entries)
        case 6:
            throw .unsupportedType
        default:
            switch info {
            case 20: return .boolean(false)
            case 21: return .boolean(true)
            case 22: return .null
            case 23: return .undefined
            case 28...30: throw .reservedAdditionalInfo
            case 31: throw .indefiniteLength
            default: throw .unsupportedType
            }
        }
    }
}
