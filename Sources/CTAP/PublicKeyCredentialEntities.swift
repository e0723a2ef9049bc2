import CBOR

/// PublicKeyCredentialRpEntity (WebAuthn §5.4.2; CTAP 2.1 §6.1 `rp`).
public struct PublicKeyCredentialRpEntity: CTAPStructure, Sendable, Hashable {
    public var id: String
    public var name: String?

    public init(id: String, name: String? = nil) {
        self.id = id
        self.name = name
    }
}

/// PublicKeyCredentialUserEntity (WebAuthn §5.4.3; CTAP 2.1 §6.1 `user`).
public struct PublicKeyCredentialUserEntity: CTAPStructure, Sendable, Hashable {
    /// The user handle: at most 64 opaque bytes.
    public var id: [UInt8]
    public var name: String?
    public var displayName: String?

    public init(id: [UInt8], name: String? = nil, displayName: String? = nil) {
        self.id = id
        self.name = name
        self.displayName = displayName
    }

    /// WebAuthn §5.4.3: a user handle is at most 64 bytes; a longer one is `CTAP1_ERR_INVALID_PARAMETER`.
    public func validate() throws(CTAPStatus) {
        guard id.count <= 64 else { throw .invalidParameter }
    }
}

/// PublicKeyCredentialDescriptor (WebAuthn §5.8.3), as in allow and exclude lists.
public struct PublicKeyCredentialDescriptor: CTAPStructure, Sendable, Hashable {
    public var type: String
    public var id: [UInt8]
    public var transports: [String]?

    public init(id: [UInt8], type: String = "public-key", transports: [String]? = nil) {
        self.id = id
        self.type = type
        self.transports = transports
    }
}

/// PublicKeyCredentialParameters (WebAuthn §5.3): a credential type and algorithm.
public struct PublicKeyCredentialParameters: CTAPStructure, Sendable, Hashable {
    public var type: String
    /// Kept as a raw integer: unknown algorithms must be skipped, not rejected.
    public var alg: Int

    public init(alg: Int, type: String = "public-key") {
        self.type = type
        self.alg = alg
    }
}
