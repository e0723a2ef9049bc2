// Codable helpers for the WebAuthn L3 §5.1 JSON forms: binary fields travel as
// base64url strings, and enumerations are DOMStrings whose unknown values are
// ignored rather than rejected (WebAuthn L3 §2.1.1).

extension KeyedDecodingContainer {
    func decodeBase64URL(forKey key: Key) throws -> [UInt8] {
        let text = try decode(String.self, forKey: key)
        do { return try Base64URL.decode(text) } catch {
            throw DecodingError.dataCorruptedError(forKey: key, in: self, debugDescription: "not base64url")
        }
    }

    func decodeBase64URLIfPresent(forKey key: Key) throws -> [UInt8]? {
        guard try decodeIfPresent(String.self, forKey: key) != nil else { return nil }
        return try decodeBase64URL(forKey: key)
    }

    /// An enumeration member, or nil when absent or an unknown value.
    func decodeKnown<T: RawRepresentable>(_ type: T.Type, forKey key: Key) throws -> T? where T.RawValue == String {
        try decodeIfPresent(String.self, forKey: key).flatMap(T.init(rawValue:))
    }

    /// A list of enumeration members with the unknown ones dropped; empty when absent.
    func decodeKnownList<T: RawRepresentable>(_ type: T.Type, forKey key: Key) throws -> [T] where T.RawValue == String {
        (try decodeIfPresent([String].self, forKey: key) ?? []).compactMap(T.init(rawValue:))
    }
}

extension KeyedEncodingContainer {
    mutating func encodeBase64URL(_ bytes: [UInt8], forKey key: Key) throws {
        try encode(Base64URL.encode(bytes), forKey: key)
    }

    mutating func encodeBase64URLIfPresent(_ bytes: [UInt8]?, forKey key: Key) throws {
        if let bytes { try encodeBase64URL(bytes, forKey: key) }
    }

    mutating func encodeRawIfPresent<T: RawRepresentable>(_ value: T?, forKey key: Key) throws where T.RawValue == String {
        if let value { try encode(value.rawValue, forKey: key) }
    }

    /// Lists whose default is empty (WebAuthn L3 §5.1.8) are left out when empty.
    mutating func encodeUnlessEmpty<T: Encodable>(_ values: [T], forKey key: Key) throws {
        if !values.isEmpty { try encode(values, forKey: key) }
    }
}
