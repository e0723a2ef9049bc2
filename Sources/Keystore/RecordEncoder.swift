import CBOR
import Foundation

/// `Encoder` for a record's binary encoding (`RecordEncoding.cbor`): any `Encodable` value
/// as CBOR, keyed containers as maps from member names, so a member added to a record type
/// is written without a format change, as JSON did. Scalars are written as `RecordScalar`
/// says; `nil` members are left out.
final class RecordEncoder: Encoder {
    /// A value being written: one CBOR item, or a map or array whose members are still being filled.
    private final class Node {
        enum Content {
            case single(CBORValue)
            case map([String: Node])
            case array([Node])
        }

        var content: Content?

        var value: CBORValue {
            switch content {
            case .single(let value): return value
            case .map(let members):
                var map: [CBORValue: CBORValue] = [:]
                map.reserveCapacity(members.count)
                for (key, node) in members { map[.textString(key)] = node.value }
                return .map(map)
            case .array(let items): return .array(items.map(\.value))
            case nil: return .map([:])
            }
        }
    }

    private let node: Node
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    private init(node: Node, codingPath: [any CodingKey]) {
        self.node = node
        self.codingPath = codingPath
    }

    /// The value as canonical CBOR.
    static func encode(_ value: some Encodable) throws -> [UInt8] {
        CBOREncoder.encode(try item(value, codingPath: []))
    }

    /// By the static type, not by casting the value: an empty `[String]` casts to `[UInt8]`.
    private static func item<T: Encodable>(_ value: T, codingPath: [any CodingKey]) throws -> CBORValue {
        if T.self == [UInt8].self { return .byteString(value as! [UInt8]) }
        if T.self == Data.self { return .byteString(Array(value as! Data)) }
        if T.self is any RecordScalar.Type { return (value as! any RecordScalar).recordValue }
        let node = Node()
        try value.encode(to: RecordEncoder(node: node, codingPath: codingPath))
        return node.value
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        if case .map = node.content {} else { node.content = .map([:]) }
        return KeyedEncodingContainer(KeyedContainer<Key>(node: node, codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        if case .array = node.content {} else { node.content = .array([]) }
        return UnkeyedContainer(node: node, codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        SingleValue(node: node, codingPath: codingPath)
    }

    private struct KeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
        let node: Node
        let codingPath: [any CodingKey]

        private func set(_ child: Node, for key: Key) {
            guard case .map(var members) = node.content else { return }
            node.content = nil
            members[key.stringValue] = child
            node.content = .map(members)
        }

        mutating func encodeNil(forKey key: Key) throws {}

        mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
            let child = Node()
            child.content = .single(try RecordEncoder.item(value, codingPath: codingPath + [key]))
            set(child, for: key)
        }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key)
            -> KeyedEncodingContainer<NestedKey>
        {
            let child = Node()
            set(child, for: key)
            return RecordEncoder(node: child, codingPath: codingPath + [key]).container(keyedBy: keyType)
        }

        mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
            let child = Node()
            set(child, for: key)
            return RecordEncoder(node: child, codingPath: codingPath + [key]).unkeyedContainer()
        }

        mutating func superEncoder() -> any Encoder { superEncoder(forKey: Key(stringValue: "super")!) }

        mutating func superEncoder(forKey key: Key) -> any Encoder {
            let child = Node()
            set(child, for: key)
            return RecordEncoder(node: child, codingPath: codingPath + [key])
        }
    }

    private struct UnkeyedContainer: UnkeyedEncodingContainer {
        let node: Node
        let codingPath: [any CodingKey]

        var count: Int {
            guard case .array(let items) = node.content else { return 0 }
            return items.count
        }

        private func append(_ child: Node) {
            guard case .array(var items) = node.content else { return }
            node.content = nil
            items.append(child)
            node.content = .array(items)
        }

        mutating func encodeNil() throws {
            let child = Node()
            child.content = .single(.null)
            append(child)
        }

        mutating func encode<T: Encodable>(_ value: T) throws {
            let child = Node()
            child.content = .single(try RecordEncoder.item(value, codingPath: codingPath))
            append(child)
        }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<
            NestedKey
        > {
            let child = Node()
            append(child)
            return RecordEncoder(node: child, codingPath: codingPath).container(keyedBy: keyType)
        }

        mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
            let child = Node()
            append(child)
            return RecordEncoder(node: child, codingPath: codingPath).unkeyedContainer()
        }

        mutating func superEncoder() -> any Encoder {
            let child = Node()
            append(child)
            return RecordEncoder(node: child, codingPath: codingPath)
        }
    }

    private struct SingleValue: SingleValueEncodingContainer {
        let node: Node
        let codingPath: [any CodingKey]

        mutating func encodeNil() throws { node.content = .single(.null) }

        mutating func encode<T: Encodable>(_ value: T) throws {
            node.content = .single(try RecordEncoder.item(value, codingPath: codingPath))
        }
    }
}
