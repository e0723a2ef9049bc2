/// A CBOR data item restricted to what CTAP2 uses (RFC 8949 §3; CTAP 2.1 §8).
///
/// Floats and tags are deliberately absent: CTAP2 never sends them, and the
/// decoder rejects them on input.
public enum CBORValue: Sendable, Hashable {
    /// Major type 0.
    case unsigned(UInt64)
    /// Major type 1: the value is `-1 - n`, so the full 64-bit negative range fits.
    case negative(UInt64)
    /// Major type 2.
    case byteString([UInt8])
    /// Major type 3, always valid UTF-8.
    case textString(String)
    /// Major type 4.
    case array([CBORValue])
    /// Major type 5. Order does not matter here: the encoder sorts keys canonically.
    case map([CBORValue: CBORValue])
    /// Simple values 20 and 21.
    case boolean(Bool)
    /// Simple value 22.
    case null
    /// Simple value 23.
    case undefined
}

extension CBORValue {
    /// An integer value, choosing the major type from the sign.
    public init<I: SignedInteger>(_ value: I) {
        if value >= 0 {
            self = .unsigned(UInt64(value))
        } else {
            // -1 - value, computed without overflowing at the type's minimum.
            self = .negative(UInt64(-(value + 1)))
        }
    }

    /// A non-negative integer value.
    public init<I: UnsignedInteger>(_ value: I) {
        self = .unsigned(UInt64(value))
    }

    /// The value as a signed integer, if it is one and fits in `Int`.
    public var intValue: Int? {
        switch self {
        case .unsigned(let n): return n <= UInt64(Int.max) ? Int(n) : nil
        case .negative(let n): return n <= UInt64(Int.max) ? -1 - Int(n) : nil
        default: return nil
        }
    }

    /// The value as an unsigned integer, if it is major type 0.
    public var unsignedValue: UInt64? {
        if case .unsigned(let n) = self { return n }
        return nil
    }

    public var bytesValue: [UInt8]? {
        if case .byteString(let b) = self { return b }
        return nil
    }

    public var textValue: String? {
        if case .textString(let s) = self { return s }
        return nil
    }

    public var arrayValue: [CBORValue]? {
        if case .array(let a) = self { return a }
        return nil
    }

    public var mapValue: [CBORValue: CBORValue]? {
        if case .map(let m) = self { return m }
        return nil
    }

    public var boolValue: Bool? {
        if case .boolean(let b) = self { return b }
        return nil
    }

    /// The CBOR major type (0–7) this value encodes with.
    public var majorType: UInt8 {
        switch self {
        case .unsigned: return 0
        case .negative: return 1
        case .byteString: return 2
        case .textString: return 3
        case .array: return 4
        case .map: return 5
        case .boolean, .null, .undefined: return 7
        }
    }
}

extension CBORValue: ExpressibleByIntegerLiteral {
    public init(integerLiteral value: Int) { self.init(value) }
}

extension CBORValue: ExpressibleByStringLiteral {
    public init(stringLiteral value: String) { self = .textString(value) }
}

extension CBORValue: ExpressibleByBooleanLiteral {
    public init(booleanLiteral value: Bool) { self = .boolean(value) }
}

extension CBORValue: ExpressibleByArrayLiteral {
    public init(arrayLiteral elements: CBORValue...) { self = .array(elements) }
}

extension CBORValue: ExpressibleByDictionaryLiteral {
    public init(dictionaryLiteral elements: (CBORValue, CBORValue)...) {
        self = .map(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
}
