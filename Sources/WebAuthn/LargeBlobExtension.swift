/// AuthenticationExtensionsLargeBlobInputs (WebAuthn L3 §10.1.5): `support` at registration,
/// `read` or `write` (base64url in JSON) at authentication.
public struct AuthenticationExtensionsLargeBlobInputsJSON: Sendable, Hashable, Codable {
    /// "required" or "preferred" (LargeBlobSupport).
    public var support: String?
    public var read: Bool?
    @Base64URLEncoded public var write: [UInt8]?

    public init(support: String? = nil, read: Bool? = nil, write: [UInt8]? = nil) {
        self.support = support
        self.read = read
        self.write = write
    }
}

/// AuthenticationExtensionsLargeBlobOutputs (WebAuthn L3 §10.1.5).
public struct AuthenticationExtensionsLargeBlobOutputsJSON: Sendable, Hashable, Codable {
    /// At registration: whether the credential can store a large blob.
    public var supported: Bool?
    /// After a read: the blob, absent when none is stored.
    @Base64URLEncoded public var blob: [UInt8]?
    /// After a write: whether it was stored.
    public var written: Bool?

    public init(supported: Bool? = nil, blob: [UInt8]? = nil, written: Bool? = nil) {
        self.supported = supported
        self.blob = blob
        self.written = written
    }
}
