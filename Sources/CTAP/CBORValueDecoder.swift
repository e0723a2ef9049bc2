import CBOR

/// `Decoder` over a decoded `CBORValue`, for `CTAPStructure`. Shape errors are thrown as the
/// `CTAPStatus` CTAP 2.1 §8 assigns, never as `DecodingError`: a missing key is
/// `missingParameter`, any type mismatch (null included) `cborUnexpectedType`.
/// Values with their own CBOR form (`CBORRepresentable`: scalars, byte strings, COSE keys,
/// nested structures) read themselves; every container method is the one generic `decode`.
struct CBORValueDecoder: Decoder {
    let value: CBORValue
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .map(let entries) = value else { throw CTAPStatus.cborUnexpectedType }
        return KeyedDecodingContainer(KeyedContainer<Key>(entries: entries))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .array(let items) = value else { throw CTAPStatus.cborUnexpectedType }
        return UnkeyedContainer(items: items)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { SingleValue(value: value) }

    /// One value as `T`: its own CBOR form if it has one, else through `Decodable`.
    static func decode<T: Decodable>(_ type: T.Type, from value: CBORValue) throws -> T {
        // Byte strings first, by identity: the commonest member, and cheaper than a conformance lookup.
        if T.self == [UInt8].self { return try [UInt8](cbor: value) as! T }
        if let representable = T.self as? any CBORRepresentable.Type {
            return try representable.init(cbor: value) as! T
        }
        if let array = T.self as? any CBORArray.Type {
            return try array.init(cborArray: value) as! T
        }
        return try T(from: CBORValueDecoder(value: value))
    }

    /// The CBOR key of a coding key: its integer value when it has one, else its name.
    static func key(_ key: some CodingKey) -> CBORValue {
        guard let number = key.intValue else { return .textString(key.stringValue) }
        return number >= 0 ? .unsigned(UInt64(number)) : .negative(UInt64(-1 - number))
    }

    private struct KeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
        let entries: [CBORValue: CBORValue]
        var codingPath: [any CodingKey] { [] }

        /// Text keys only: the keys a `[String: V]` member can have.
        var allKeys: [Key] {
            entries.keys.compactMap { $0.textValue.flatMap(Key.init(stringValue:)) }
        }

        func contains(_ key: Key) -> Bool { entries[CBORValueDecoder.key(key)] != nil }

        /// CTAP maps never carry null for a member: a present null is a wrong type, not absence.
        func decodeNil(forKey key: Key) throws -> Bool { false }

        private func value(_ key: Key) throws -> CBORValue {
            guard let value = entries[CBORValueDecoder.key(key)] else { throw CTAPStatus.missingParameter }
            return value
        }

        func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
            try CBORValueDecoder.decode(T.self, from: value(key))
        }

        func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
            guard let value = entries[CBORValueDecoder.key(key)] else { return nil }
            return try CBORValueDecoder.decode(T.self, from: value)
        }

        // The scalar requirements, so the commonest members skip the dynamic cast in `decode`.
        func decode(_ type: String.Type, forKey key: Key) throws -> String { try String(cbor: value(key)) }
        func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try Bool(cbor: value(key)) }
        func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try Int(cbor: value(key)) }
        func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? {
            try entries[CBORValueDecoder.key(key)].map(String.init(cbor:))
        }
        func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? {
            try entries[CBORValueDecoder.key(key)].map(Bool.init(cbor:))
        }
        func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? {
            try entries[CBORValueDecoder.key(key)].map(Int.init(cbor:))
        }

        func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws
            -> KeyedDecodingContainer<NestedKey>
        {
            try CBORValueDecoder(value: value(key)).container(keyedBy: type)
        }

        func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
            try CBORValueDecoder(value: value(key)).unkeyedContainer()
        }

        func superDecoder() throws -> any Decoder { throw CTAPStatus.cborUnexpectedType }
        func superDecoder(forKey key: Key) throws -> any Decoder { throw CTAPStatus.cborUnexpectedType }
    }

    private struct UnkeyedContainer: UnkeyedDecodingContainer {
        let items: [CBORValue]
        var currentIndex = 0
        var codingPath: [any CodingKey] { [] }
        var count: Int? { items.count }
        var isAtEnd: Bool { currentIndex >= items.count }

        mutating func decodeNil() throws -> Bool { false }

        private mutating func next() throws -> CBORValue {
            guard !isAtEnd else { throw CTAPStatus.cborUnexpectedType }
            defer { currentIndex += 1 }
            return items[currentIndex]
        }

        mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
            try CBORValueDecoder.decode(T.self, from: next())
        }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws
            -> KeyedDecodingContainer<NestedKey>
        {
            try CBORValueDecoder(value: next()).container(keyedBy: type)
        }

        mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
            try CBORValueDecoder(value: next()).unkeyedContainer()
        }

        mutating func superDecoder() throws -> any Decoder { throw CTAPStatus.cborUnexpectedType }
    }

    /// A scalar a `Decodable` asks for (a raw value, a wrapped member): only types with a
    /// CBOR form; anything else (floats included) is the wrong type.
    private struct SingleValue: SingleValueDecodingContainer {
        let value: CBORValue
        var codingPath: [any CodingKey] { [] }

        func decodeNil() -> Bool { false }

        func decode<T: Decodable>(_ type: T.Type) throws -> T {
            guard let representable = T.self as? any CBORRepresentable.Type else { throw CTAPStatus.cborUnexpectedType }
            return try representable.init(cbor: value) as! T
        }
    }
}
