import PasskeydMacros

// Codable helpers for the WebAuthn L3 §5.1 JSON forms: binary fields travel as
// base64url strings, and enumerations are DOMStrings whose unknown values are
// ignored rather than rejected (WebAuthn L3 §2.1.1).

/// Bytes that travel as a `Base64URLString` (WebAuthn L3 §5.1): `[UInt8]`, or `[UInt8]?` for
/// a member that may be absent.
public protocol Base64URLValue: Sendable, Hashable {
    init(decodingBase64URLFrom container: any SingleValueDecodingContainer) throws
    func encodeBase64URL(to container: inout any SingleValueEncodingContainer) throws
}

extension Array: Base64URLValue where Element == UInt8 {
    /// A string that is not base64url is `dataCorrupted` with "not base64url", the words
    /// `OptionsJSONError` passes on; a non-string is Foundation's `typeMismatch`.
    public init(decodingBase64URLFrom container: any SingleValueDecodingContainer) throws {
        let text = try container.decode(String.self)
        do { self = try Base64URL.decode(text) } catch {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "not base64url")
        }
    }

    public func encodeBase64URL(to container: inout any SingleValueEncodingContainer) throws {
        try container.encode(Base64URL.encode(self))
    }
}

extension Optional: Base64URLValue where Wrapped == [UInt8] {
    /// `null` is nil; an absent member never gets here (see `KeyedDecodingContainer.decode` below).
    public init(decodingBase64URLFrom container: any SingleValueDecodingContainer) throws {
        self = try container.decodeNil() ? nil : [UInt8](decodingBase64URLFrom: container)
    }

    public func encodeBase64URL(to container: inout any SingleValueEncodingContainer) throws {
        if let self { try self.encodeBase64URL(to: &container) } else { try container.encodeNil() }
    }
}

/// A member that is base64url on the wire and bytes in Swift, so that its type keeps
/// synthesized `Codable`: `@Base64URLEncoded public var rawId: [UInt8]`.
@propertyWrapper
@MemberwiseInit
public struct Base64URLEncoded<Value: Base64URLValue>: Sendable, Hashable, Codable {
    public var wrappedValue: Value

    public init(from decoder: any Decoder) throws {
        wrappedValue = try Value(decodingBase64URLFrom: decoder.singleValueContainer())
    }

    public func encode(to encoder: any Encoder) throws {
        var container: any SingleValueEncodingContainer = encoder.singleValueContainer()
        try wrappedValue.encodeBase64URL(to: &container)
    }
}

/// An enumeration member that decodes as nil when absent, null or a value this version does
/// not know (WebAuthn L3 §2.1.1: the client ignores it), and is left out when nil:
/// `@KnownOrAbsent public var authenticatorAttachment: AuthenticatorAttachment?`.
@propertyWrapper
public struct KnownOrAbsent<Value: RawRepresentable & Sendable & Hashable>: Sendable, Hashable, Codable
where Value.RawValue == String {
    public var wrappedValue: Value?

    public init(wrappedValue: Value?) {
        self.wrappedValue = wrappedValue
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        wrappedValue = try container.decodeNil() ? nil : Value(rawValue: container.decode(String.self))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(wrappedValue?.rawValue)
    }
}

// Synthesized `Codable` codes a wrapped member with `decode`/`encode`, which would require the
// key and write `null`; these overloads, chosen over the generic ones, make an optional member
// optional on the wire as WebAuthn L3 §5.1's dictionaries have it: absent or null reads as nil,
// nil is left out.
extension KeyedDecodingContainer {
    public func decode(_ type: Base64URLEncoded<[UInt8]?>.Type, forKey key: Key) throws -> Base64URLEncoded<[UInt8]?> {
        try decodeIfPresent(type, forKey: key) ?? Base64URLEncoded(wrappedValue: nil)
    }

    public func decode<T>(_ type: KnownOrAbsent<T>.Type, forKey key: Key) throws -> KnownOrAbsent<T> {
        try decodeIfPresent(type, forKey: key) ?? KnownOrAbsent(wrappedValue: nil)
    }
}

extension KeyedEncodingContainer {
    public mutating func encode(_ value: Base64URLEncoded<[UInt8]?>, forKey key: Key) throws {
        if let bytes = value.wrappedValue { try encode(Base64URLEncoded(wrappedValue: bytes), forKey: key) }
    }

    public mutating func encode<T>(_ value: KnownOrAbsent<T>, forKey key: Key) throws {
        if let member = value.wrappedValue { try encode(member.rawValue, forKey: key) }
    }
}

// For the dictionaries whose members have spec defaults, still coded by hand.
extension KeyedDecodingContainer {
    func decodeBase64URL(forKey key: Key) throws -> [UInt8] {
        try decode(Base64URLEncoded<[UInt8]>.self, forKey: key).wrappedValue
    }

    /// An enumeration member, or nil when absent or an unknown value.
    func decodeKnown<T: RawRepresentable & Sendable & Hashable>(_ type: T.Type, forKey key: Key) throws -> T?
    where T.RawValue == String {
        try decode(KnownOrAbsent<T>.self, forKey: key).wrappedValue
    }

    /// A list of enumeration members with the unknown ones dropped; empty when absent.
    func decodeKnownList<T: RawRepresentable>(_ type: T.Type, forKey key: Key) throws -> [T]
    where T.RawValue == String {
        (try decodeIfPresent([String].self, forKey: key) ?? []).compactMap(T.init(rawValue:))
    }
}

extension KeyedEncodingContainer {
    mutating func encodeBase64URL(_ bytes: [UInt8], forKey key: Key) throws {
        try encode(Base64URLEncoded(wrappedValue: bytes), forKey: key)
    }

    mutating func encodeRawIfPresent<T: RawRepresentable & Sendable & Hashable>(_ value: T?, forKey key: Key) throws
    where T.RawValue == String {
        try encode(KnownOrAbsent(wrappedValue: value), forKey: key)
    }

    /// Lists whose default is empty (WebAuthn L3 §5.1.8) are left out when empty.
    mutating func encodeUnlessEmpty<T: Encodable>(_ values: [T], forKey key: Key) throws {
        if !values.isEmpty { try encode(values, forKey: key) }
    }
}
