import CBOR
import PasskeydMacros

// The user entity and the credential descriptor travel in every assertion, and the RP entity
// and the credential parameters in every registration, so `@CTAPMap` codes them rather than
// `Codable` over `CBORValue`. Their keys are the member names (the synthesized `CodingKeys`).

/// PublicKeyCredentialRpEntity (WebAuthn §5.4.2; CTAP 2.1 §6.1 `rp`).
@CTAPMap @MemberwiseInit
public struct PublicKeyCredentialRpEntity: CTAPStructure, Sendable, Hashable {
    public var id: String
    public var name: String?
}

/// PublicKeyCredentialUserEntity (WebAuthn §5.4.3; CTAP 2.1 §6.1 `user`).
@CTAPMap @MemberwiseInit
public struct PublicKeyCredentialUserEntity: CTAPStructure, Sendable, Hashable {
    /// The user handle: at most 64 opaque bytes.
    public var id: [UInt8]
    public var name: String?
    public var displayName: String?

    /// WebAuthn §5.4.3: a user handle is at most 64 bytes; a longer one is `CTAP1_ERR_INVALID_PARAMETER`.
    public func validate() throws(CTAPStatus) {
        guard id.count <= 64 else { throw .invalidParameter }
    }
}

/// PublicKeyCredentialDescriptor (WebAuthn §5.8.3), as in allow and exclude lists.
@CTAPMap
public struct PublicKeyCredentialDescriptor: CTAPStructure, Sendable, Hashable {
    public var type: String
    public var id: [UInt8]
    public var transports: [String]?

    /// The ID first: `type` has a default (and is read first, as the dictionary declares it).
    public init(id: [UInt8], type: String = "public-key", transports: [String]? = nil) {
        self.type = type
        self.id = id
        self.transports = transports
    }
}

/// PublicKeyCredentialParameters (WebAuthn §5.3): a credential type and algorithm.
@CTAPMap
public struct PublicKeyCredentialParameters: CTAPStructure, Sendable, Hashable {
    public var type: String
    /// Kept as a raw integer: unknown algorithms must be skipped, not rejected.
    public var alg: Int

    /// The algorithm first: `type` has a default (and is read first, as the dictionary declares it).
    public init(alg: Int, type: String = "public-key") {
        self.type = type
        self.alg = alg
    }
}
