/// AuthenticationExtensionsLargeBlobInputs (WebAuthn L3 §10.1.5): `support` at registration,
/// `read` or `write` (base64url in JSON) at authentication.
public struct AuthenticationExtensionsLargeBlobInputsJSON: Sendable, Hashable, Codable {
    /// "required" or "preferred" (LargeBlobSupport).
    public var support: String?
    public var read: Bool?
    public var write: [UInt8]?

    public init(support: String? = nil, read: Bool? = nil, write: [UInt8]? = nil) {
        self.support = support
        self.read = read
        self.write = write
    }

    enum CodingKeys: String, CodingKey { case support, read, write }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        support = try c.decodeIfPresent(String.self, forKey: .support)
        read = try c.decodeIfPresent(Bool.self, forKey: .read)
        write = try c.decodeBase64URLIfPresent(forKey: .write)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encodeIfPresent(support, forKey: .support)
        try c.encodeIfPresent(read, forKey: .read)
        try c.encodeBase64URLIfPresent(write, forKey: .write)
    }
}

/// AuthenticationExtensionsLargeBlobOutputs (WebAuthn L3 §10.1.5).
public struct AuthenticationExtensionsLargeBlobOutputsJSON: Sendable, Hashable, Codable {
    /// At registration: whether the credential can store a large blob.
    public var supported: Bool?
    /// After a read: the blob, absent when none is stored.
    public var blob: [UInt8]?
    /// After a write: whether it was stored.
    public var written: Bool?

    public init(supported: Bool? = nil, blob: [UInt8]? = nil, written: Bool? = nil) {
        self.supported = supported
        self.blob = blob
        self.written = written
    }

    enum CodingKeys: String, CodingKey { case supported, blob, written }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        supported = try c.decodeIfPresent(Bool.self, forKey: .supported)
        blob = try c.decodeBase64URLIfPresent(forKey: .blob)
        written = try c.decodeIfPresent(Bool.self, forKey: .written)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encodeIfPresent(supported, forKey: .supported)
        try c.encodeBase64URLIfPresent(blob, forKey: .blob)
        try c.encodeIfPresent(written, forKey: .written)
    }
}
