import CBOR

/// A CTAP request or response structure declared once (CTAP 2.1 §6, §8): its members and
/// their `CodingKeys` (integer raw values for the command maps, member names for the
/// WebAuthn dictionaries). `init(cbor:)` and `cbor` come from `Codable` over `CBORValue`,
/// with the statuses CTAP 2.1 §8 assigns: a missing required key is
/// `CTAP2_ERR_MISSING_PARAMETER`, a present key of the wrong type
/// `CTAP2_ERR_CBOR_UNEXPECTED_TYPE`; keys the structure does not declare are ignored.
/// A structure with rules beyond shape states them in `validate()`.
public protocol CTAPStructure: Codable, CBORRepresentable {
    /// Checks after decoding, throwing the status the spec gives the violation.
    func validate() throws(CTAPStatus)
}

extension CTAPStructure {
    public func validate() throws(CTAPStatus) {}

    public init(cbor: CBORValue) throws(CTAPStatus) {
        do {
            self = try Self(from: CBORValueDecoder(value: cbor))
        } catch let status as CTAPStatus {
            throw status
        } catch {
            // Only `Decodable` conformances outside this module throw anything else.
            throw .cborUnexpectedType
        }
        try validate()
    }

    public var cbor: CBORValue {
        let encoder = CBORValueEncoder()
        // The encoder itself never throws; members are values this module encodes.
        try? encode(to: encoder)
        return encoder.storage.value
    }
}

/// A member with a value that means "absent": left out when encoding, and what decoding
/// gives for a missing key (CTAP 2.1 §6.1 `excludeList`, `extensions`, `options`, …).
public protocol OmittedWhenEmpty: Codable {
    static var empty: Self { get }
    var isEmpty: Bool { get }
}

extension Array: OmittedWhenEmpty where Element: Codable {
    public static var empty: Self { [] }
}

extension Dictionary: OmittedWhenEmpty where Key: Codable, Value: Codable {
    public static var empty: Self { [:] }
}

/// An optional member (`Defaulted`) that is absent when empty and empty when absent.
@propertyWrapper
public struct Defaulted<Value: OmittedWhenEmpty>: Codable {
    public var wrappedValue: Value
    public init(wrappedValue: Value) { self.wrappedValue = wrappedValue }
    public init(from decoder: any Decoder) throws { wrappedValue = try Value(from: decoder) }
    public func encode(to encoder: any Encoder) throws { try wrappedValue.encode(to: encoder) }
}

extension Defaulted: Sendable where Value: Sendable {}
extension Defaulted: Equatable where Value: Equatable {}
extension Defaulted: Hashable where Value: Hashable {}

/// An optional integer member that must be major type 0 (protocol numbers, retry counts):
/// a negative value is `CTAP2_ERR_CBOR_UNEXPECTED_TYPE`.
@propertyWrapper
public struct Unsigned: Codable, Sendable, Hashable {
    public var wrappedValue: Int?
    public init(wrappedValue: Int?) { self.wrappedValue = wrappedValue }
    public init(from decoder: any Decoder) throws {
        let number = try decoder.singleValueContainer().decode(UInt64.self)
        guard let value = Int(exactly: number) else { throw CTAPStatus.cborUnexpectedType }
        wrappedValue = value
    }
    /// The member's value read from CBOR directly, for structures coded by hand: the same rule.
    public static func int(cbor: CBORValue) throws(CTAPStatus) -> Int {
        guard let number = cbor.unsignedValue, let value = Int(exactly: number) else { throw .cborUnexpectedType }
        return value
    }
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(wrappedValue)
    }
}

extension KeyedDecodingContainer {
    public func decode<Value>(_: Defaulted<Value>.Type, forKey key: Key) throws -> Defaulted<Value> {
        Defaulted(wrappedValue: try decodeIfPresent(Value.self, forKey: key) ?? .empty)
    }

    public func decode(_: Unsigned.Type, forKey key: Key) throws -> Unsigned {
        try decodeIfPresent(Unsigned.self, forKey: key) ?? Unsigned(wrappedValue: nil)
    }
}

extension KeyedEncodingContainer {
    public mutating func encode<Value>(_ member: Defaulted<Value>, forKey key: Key) throws {
        if !member.wrappedValue.isEmpty { try encode(member.wrappedValue, forKey: key) }
    }

    public mutating func encode(_ member: Unsigned, forKey key: Key) throws {
        try encodeIfPresent(member.wrappedValue, forKey: key)
    }
}
