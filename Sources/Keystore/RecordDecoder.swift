import CBOR
import Foundation

/// `Decoder` for a record's binary encoding (`RecordEncoding.cbor`), the reverse of
/// `RecordEncoder`: members the type does not know are ignored and absent optional members
/// are nil, so records written by older and newer builds of one version read alike.
struct RecordDecoder: Decoder {
    private let value: CBORValue
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    /// Records nest a few levels (a credential's user entity, the device state's certificates).
    static let nestingLimit = 16

    static func decode<T: Decodable>(_ type: T.Type, from bytes: [UInt8]) throws -> T {
        try value(T.self, from: CBORDecoder.decode(bytes, maxDepth: nestingLimit), codingPath: [])
    }

    /// By the static type, as `RecordEncoder` chose the item.
    private static func value<T: Decodable>(_ type: T.Type, from item: CBORValue, codingPath: [any CodingKey]) throws
        -> T
    {
        if T.self == [UInt8].self || T.self == Data.self {
            guard case .byteString(let bytes) = item else { throw RecordValueMismatch.expected(T.self, found: item) }
            return T.self == Data.self ? Data(bytes) as! T : bytes as! T
        }
        if let scalar = T.self as? any RecordScalar.Type { return try scalar.init(record: item) as! T }
        return try T(from: RecordDecoder(value: item, codingPath: codingPath))
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .map(let members) = value else {
            throw RecordValueMismatch.expected([String: Any].self, found: value)
        }
        return KeyedDecodingContainer(KeyedContainer<Key>(members: members, codingPath: codingPath))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .array(let items) = value else { throw RecordValueMismatch.expected([Any].self, found: value) }
        return UnkeyedContainer(items: items, codingPath: codingPath)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        SingleValue(value: value, codingPath: codingPath)
    }

    private struct KeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
        let members: [CBORValue: CBORValue]
        let codingPath: [any CodingKey]

        var allKeys: [Key] { members.keys.compactMap { $0.textValue.flatMap(Key.init(stringValue:)) } }

        func contains(_ key: Key) -> Bool { members[.textString(key.stringValue)] != nil }

        private func item(_ key: Key) throws -> CBORValue {
            guard let item = members[.textString(key.stringValue)] else {
                throw DecodingError.keyNotFound(
                    key, .init(codingPath: codingPath, debugDescription: "absent from the record"))
            }
            return item
        }

        func decodeNil(forKey key: Key) throws -> Bool { members[.textString(key.stringValue)] ?? .null == .null }

        func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
            try RecordDecoder.value(T.self, from: item(key), codingPath: codingPath + [key])
        }

        func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws
            -> KeyedDecodingContainer<NestedKey>
        {
            try RecordDecoder(value: item(key), codingPath: codingPath + [key]).container(keyedBy: type)
        }

        func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
            try RecordDecoder(value: item(key), codingPath: codingPath + [key]).unkeyedContainer()
        }

        func superDecoder() throws -> any Decoder { try superDecoder(forKey: Key(stringValue: "super")!) }

        func superDecoder(forKey key: Key) throws -> any Decoder {
            RecordDecoder(value: members[.textString(key.stringValue)] ?? .null, codingPath: codingPath + [key])
        }
    }

    private struct UnkeyedContainer: UnkeyedDecodingContainer {
        let items: [CBORValue]
        let codingPath: [any CodingKey]
        var currentIndex = 0
        var count: Int? { items.count }
        var isAtEnd: Bool { currentIndex >= items.count }

        private mutating func next() throws -> CBORValue {
            guard !isAtEnd else {
                throw DecodingError.valueNotFound(
                    Any.self, .init(codingPath: codingPath, debugDescription: "past the array's end"))
            }
            defer { currentIndex += 1 }
            return items[currentIndex]
        }

        mutating func decodeNil() throws -> Bool {
            guard !isAtEnd, items[currentIndex] == .null else { return false }
            currentIndex += 1
            return true
        }

        mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
            try RecordDecoder.value(T.self, from: next(), codingPath: codingPath)
        }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws
            -> KeyedDecodingContainer<NestedKey>
        {
            try RecordDecoder(value: next(), codingPath: codingPath).container(keyedBy: type)
        }

        mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
            try RecordDecoder(value: next(), codingPath: codingPath).unkeyedContainer()
        }

        mutating func superDecoder() throws -> any Decoder { RecordDecoder(value: try next(), codingPath: codingPath) }
    }

    private struct SingleValue: SingleValueDecodingContainer {
        let value: CBORValue
        let codingPath: [any CodingKey]

        func decodeNil() -> Bool { value == .null }

        func decode<T: Decodable>(_ type: T.Type) throws -> T {
            try RecordDecoder.value(T.self, from: value, codingPath: codingPath)
        }
    }
}
