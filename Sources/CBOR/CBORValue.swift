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

extension CBORValue {
    /// Data-model equality (RFC 8949 §2): text strings compare as their UTF-8 bytes.
    ///
    /// Swift's `String ==` uses Unicode canonical equivalence, under which "é" (C3 A9)
    /// equals "e" + U+0301 (65 CC 81). Two such keys are distinct in CBOR; comparing
    /// them as equal would make the decoder refuse a valid map as a duplicate and make
    /// a dictionary silently drop one of the two entries.
    public static func == (lhs: CBORValue, rhs: CBORValue) -> Bool {
        switch (lhs, rhs) {
        case (.unsigned(let a), .unsigned(let b)): return a == b
        case (.negative(let a), .negative(let b)): return a == b
        case (.byteString(let a), .byteString(let b)): return a == b
        case (.textString(let a), .textString(let b)): return a.utf8.elementsEqual(b.utf8)
        case (.array(let a), .array(let b)): return a == b
        case (.map(let a), .map(let b)): return a == b
        case (.boolean(let a), .boolean(let b)): return a == b
        case (.null, .null), (.undefined, .undefined): return true
        default: return false
        }
    }

    /// Byte and text strings are hashed as one block of bytes after their length, not byte by
    /// byte: every map lookup (a request's members, a record's fields) hashes its key.
    public func hash(into hasher: inout Hasher) {
        switch self {
        case .unsigned(let n):
            hasher.combine(0 as UInt8)
            hasher.combine(n)
        case .negative(let n):
            hasher.combine(1 as UInt8)
            hasher.combine(n)
        case .byteString(let b):
            hasher.combine(2 as UInt8)
            hasher.combine(b.count)
            b.withUnsafeBytes { hasher.combine(bytes: $0) }
        case .textString(var s):
            hasher.combine(3 as UInt8)
            hasher.combine(s.utf8.count)
            // The UTF-8 bytes, as `==` compares them.
            s.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
        case .array(let a):
            hasher.combine(4 as UInt8)
            hasher.combine(a)
        case .map(let m):
            hasher.combine(5 as UInt8)
            hasher.combine(m)
        case .boolean(let b):
            hasher.combine(6 as UInt8)
            hasher.combine(b)
        case .null: hasher.combine(7 as UInt8)
        case .undefined: hasher.combine(8 as UInt8)
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
