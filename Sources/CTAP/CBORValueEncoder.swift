import CBOR

/// `Encoder` producing a `CBORValue`, for `CTAPStructure`. Keyed containers become maps keyed
/// as `CBORValueDecoder.key` reads them; the CBOR encoder orders them canonically
/// (CTAP 2.1 §8). Values with their own CBOR form (`CBORRepresentable`) write themselves.
final class CBORValueEncoder: Encoder {
    /// What has been written: a map or array being filled, or one value.
    final class Storage {
        var map: [CBORValue: CBORValue]?
        var array: [CBORValue]?
        var single: CBORValue?

        var value: CBORValue {
            if let single { return single }
            if let array { return .array(array) }
            return .map(map ?? [:])
        }
    }

    let storage = Storage()
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        if storage.map == nil { storage.map = [:] }
        return KeyedEncodingContainer(KeyedContainer<Key>(storage: storage))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        if storage.array == nil { storage.array = [] }
        return UnkeyedContainer(storage: storage)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer { SingleValue(storage: storage) }

    /// One value: its own CBOR form if it has one, else through `Encodable`.
    static func encode(_ value: some Encodable) throws -> CBORValue {
        if let representable = value as? any CBORRepresentable { return representable.cbor }
        if let array = value as? any CBORArray { return array.cborArray }
        let encoder = CBORValueEncoder()
        try value.encode(to: encoder)
        return encoder.storage.value
    }

    private struct KeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
        let storage: Storage
        var codingPath: [any CodingKey] { [] }

        mutating func encodeNil(forKey key: Key) throws { storage.map?[CBORValueDecoder.key(key)] = .null }

        mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
            storage.map?[CBORValueDecoder.key(key)] = try CBORValueEncoder.encode(value)
        }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key)
            -> KeyedEncodingContainer<NestedKey>
        {
            preconditionFailure("CTAP structures nest through their members' types")
        }
        mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
            preconditionFailure("CTAP structures nest through their members' types")
        }
        mutating func superEncoder() -> any Encoder { preconditionFailure("CTAP structures have no superclass") }
        mutating func superEncoder(forKey key: Key) -> any Encoder {
            preconditionFailure("CTAP structures have no superclass")
        }
    }

    private struct UnkeyedContainer: UnkeyedEncodingContainer {
        let storage: Storage
        var codingPath: [any CodingKey] { [] }
        var count: Int { storage.array?.count ?? 0 }

        mutating func encodeNil() throws { storage.array?.append(.null) }
        mutating func encode<T: Encodable>(_ value: T) throws {
            storage.array?.append(try CBORValueEncoder.encode(value))
        }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<
            NestedKey
        > {
            preconditionFailure("CTAP structures nest through their members' types")
        }
        mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
            preconditionFailure("CTAP structures nest through their members' types")
        }
        mutating func superEncoder() -> any Encoder { preconditionFailure("CTAP structures have no superclass") }
    }

    /// A scalar an `Encodable` writes (a raw value, a wrapped member): only types with a CBOR form.
    private struct SingleValue: SingleValueEncodingContainer {
        let storage: Storage
        var codingPath: [any CodingKey] { [] }

        mutating func encodeNil() throws { storage.single = .null }

        mutating func encode<T: Encodable>(_ value: T) throws {
            // CTAP2 canonical CBOR has no floats (CTAP 2.1 §8); nothing here writes one.
            guard let representable = value as? any CBORRepresentable else { throw CTAPStatus.other }
            storage.single = representable.cbor
        }
    }
}
