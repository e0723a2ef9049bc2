import CBOR

/// A request or response map read field by field, turning CBOR shape errors into
/// the statuses CTAP 2.1 §8 assigns: a missing required key is
/// `CTAP2_ERR_MISSING_PARAMETER`, a present key of the wrong type is
/// `CTAP2_ERR_CBOR_UNEXPECTED_TYPE`. Keys nobody asks for are ignored, as the spec
/// requires of unknown keys. For the shapes `CTAPStructure` does not fit: COSE keys,
/// attestation statements, the makeCredential response.
public struct CBORMap: Sendable {
    public let entries: [CBORValue: CBORValue]

    public init(_ value: CBORValue) throws(CTAPStatus) {
        guard case .map(let entries) = value else { throw .cborUnexpectedType }
        self.entries = entries
    }

    /// Decodes untrusted bytes that must hold one CBOR map.
    public init(decoding bytes: [UInt8]) throws(CTAPStatus) {
        let value: CBORValue
        do { value = try CBORDecoder.decode(bytes) } catch { throw .invalidCBOR }
        try self.init(value)
    }

    public func optional<T>(_ key: CBORValue, _ read: (CBORValue) throws(CTAPStatus) -> T?) throws(CTAPStatus) -> T? {
        guard let value = entries[key] else { return nil }
        guard let typed = try read(value) else { throw .cborUnexpectedType }
        return typed
    }

    public func required<T>(_ key: CBORValue, _ read: (CBORValue) throws(CTAPStatus) -> T?) throws(CTAPStatus) -> T {
        guard let typed = try optional(key, read) else { throw .missingParameter }
        return typed
    }
}

/// Readers for `CBORMap.optional` / `required`, one per CBOR shape.
public enum CBORRead {
    public static func bytes(_ v: CBORValue) -> [UInt8]? { v.bytesValue }
    public static func text(_ v: CBORValue) -> String? { v.textValue }
    public static func int(_ v: CBORValue) -> Int? { v.intValue }
    public static func unsigned(_ v: CBORValue) -> UInt64? { v.unsignedValue }
    public static func bool(_ v: CBORValue) -> Bool? { v.boolValue }
    public static func any(_ v: CBORValue) -> CBORValue? { v }

    /// An array of byte strings.
    public static func bytesArray(_ v: CBORValue) throws(CTAPStatus) -> [[UInt8]]? {
        try array(of: element(\.bytesValue))(v)
    }

    /// An element reader from an accessor: a value of the wrong type is `CTAP2_ERR_CBOR_UNEXPECTED_TYPE`.
    static func element<T>(_ accessor: @escaping (CBORValue) -> T?) -> (CBORValue) throws(CTAPStatus) -> T {
        { (value: CBORValue) throws(CTAPStatus) -> T in
            guard let typed = accessor(value) else { throw .cborUnexpectedType }
            return typed
        }
    }

    /// An array whose every element must parse with `element`; a wrong element type fails the whole array.
    public static func array<T>(of element: @escaping (CBORValue) throws(CTAPStatus) -> T) -> (CBORValue)
        throws(CTAPStatus) -> [T]?
    {
        { (value: CBORValue) throws(CTAPStatus) -> [T]? in
            guard let items = value.arrayValue else { return nil }
            var out: [T] = []
            out.reserveCapacity(items.count)
            for item in items { out.append(try element(item)) }
            return out
        }
    }
}

extension CBORValue {
    /// A map from integer keys, dropping absent (nil) values: the shape of every CTAP request and response.
    public static func intKeyed(_ pairs: [(Int, CBORValue?)]) -> CBORValue {
        var entries: [CBORValue: CBORValue] = [:]
        for (key, value) in pairs { if let value { entries[CBORValue(key)] = value } }
        return .map(entries)
    }
}

/// A structure's key table is its `CodingKeys`: integer keys for the command maps, member names
/// for the WebAuthn dictionaries (CTAP 2.1 §6). Hand-written codecs name keys through it, so
/// each key is written once (`scripts/check-ctap-keys`).
extension CodingKey {
    /// The key as it stands in the CBOR map. The cases are built here rather than through
    /// `CBORValue`'s generic integer initializer, which another module cannot specialize: that
    /// call made every keyed read about half as slow again.
    @inline(__always)
    public var cborKey: CBORValue {
        guard let int = intValue else { return .textString(stringValue) }
        return int >= 0 ? .unsigned(UInt64(int)) : .negative(UInt64(-1 - int))
    }
}

extension CBORMap {
    public func optional<T>(_ key: some CodingKey, _ read: (CBORValue) throws(CTAPStatus) -> T?) throws(CTAPStatus)
        -> T?
    {
        try optional(key.cborKey, read)
    }

    public func required<T>(_ key: some CodingKey, _ read: (CBORValue) throws(CTAPStatus) -> T?) throws(CTAPStatus) -> T
    {
        try required(key.cborKey, read)
    }
}

extension CBORValue {
    /// A map from a key table's keys, dropping absent (nil) values.
    public static func keyed<Key: CodingKey>(_: Key.Type, _ pairs: [(Key, CBORValue?)]) -> CBORValue {
        var entries: [CBORValue: CBORValue] = [:]
        for (key, value) in pairs { if let value { entries[key.cborKey] = value } }
        return .map(entries)
    }
}

extension CBORWriter {
    /// A key from a structure's key table; the caller writes keys in canonical order (CTAP 2.1 §8).
    @inline(__always)
    public mutating func key(_ key: some CodingKey) {
        if let int = key.intValue { integer(int) } else { textString(key.stringValue) }
    }
}
