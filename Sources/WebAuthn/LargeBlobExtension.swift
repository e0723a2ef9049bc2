import PasskeydMacros

/// AuthenticationExtensionsLargeBlobInputs (WebAuthn L3 §10.1.5): `support` at registration,
/// `read` or `write` (base64url in JSON) at authentication.
@MemberwiseInit
public struct AuthenticationExtensionsLargeBlobInputsJSON: Sendable, Hashable, Codable {
    /// "required" or "preferred" (LargeBlobSupport).
    public var support: String?
    public var read: Bool?
    @Base64URLEncoded public var write: [UInt8]?
}

/// AuthenticationExtensionsLargeBlobOutputs (WebAuthn L3 §10.1.5).
@MemberwiseInit
public struct AuthenticationExtensionsLargeBlobOutputsJSON: Sendable, Hashable, Codable {
    /// At registration: whether the credential can store a large blob.
    public var supported: Bool?
    /// After a read: the blob, absent when none is stored.
    @Base64URLEncoded public var blob: [UInt8]?
    /// After a write: whether it was stored.
    public var written: Bool?
}
