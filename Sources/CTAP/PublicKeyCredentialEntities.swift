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

// The user entity and the credential descriptor travel in every assertion, and the RP entity
// and the credential parameters in every registration, so they are coded by hand rather than
// through `Codable` over `CBORValue`, with `CTAPStructure`'s statuses:
// members in declaration order (missing required: CTAP2_ERR_MISSING_PARAMETER; wrong type:
// CTAP2_ERR_CBOR_UNEXPECTED_TYPE; unknown keys ignored), then `validate()`. Their keys are the
// member names, through the synthesized `CodingKeys`; a writer puts text keys in CTAP 2.1 §8's
// canonical order: shorter first, then bytewise.

extension PublicKeyCredentialUserEntity {
    public init(cbor: CBORValue) throws(CTAPStatus) {
        let map = try CBORMap(cbor)
        let id = try map.required(CodingKeys.id, [UInt8].init(cbor:))
        let name = try map.optional(CodingKeys.name, String.init(cbor:))
        let displayName = try map.optional(CodingKeys.displayName, String.init(cbor:))
        self.init(id: id, name: name, displayName: displayName)
        try validate()
    }

    public var cbor: CBORValue {
        .keyed(
            CodingKeys.self,
            [
                (.id, .byteString(id)), (.name, name.map(CBORValue.textString)),
                (.displayName, displayName.map(CBORValue.textString))
            ])
    }

    /// `cbor.encoded`'s bytes, written directly (in every sign-in's answer).
    public func encode(into writer: inout CBORWriter) {
        writer.mapHeader(count: 1 + (name == nil ? 0 : 1) + (displayName == nil ? 0 : 1))
        // "id" (62 …), "name" (64 …), "displayName" (6B …).
        writer.key(CodingKeys.id)
        writer.byteString(id)
        if let name {
            writer.key(CodingKeys.name)
            writer.textString(name)
        }
        if let displayName {
            writer.key(CodingKeys.displayName)
            writer.textString(displayName)
        }
    }
}

extension PublicKeyCredentialDescriptor {
    public init(cbor: CBORValue) throws(CTAPStatus) {
        let map = try CBORMap(cbor)
        let type = try map.required(CodingKeys.type, String.init(cbor:))
        let id = try map.required(CodingKeys.id, [UInt8].init(cbor:))
        let transports = try map.optional(CodingKeys.transports, [String].init(cborArray:))
        self.init(id: id, type: type, transports: transports)
        try validate()
    }

    public var cbor: CBORValue {
        .keyed(
            CodingKeys.self, [(.type, .textString(type)), (.id, .byteString(id)), (.transports, transports?.cborArray)])
    }

    /// `cbor.encoded`'s bytes, written directly (in every sign-in's answer).
    public func encode(into writer: inout CBORWriter) {
        writer.mapHeader(count: transports == nil ? 2 : 3)
        // "id" (62 …), "type" (64 …), "transports" (6A …).
        writer.key(CodingKeys.id)
        writer.byteString(id)
        writer.key(CodingKeys.type)
        writer.textString(type)
        if let transports {
            writer.key(CodingKeys.transports)
            writer.value(transports.cborArray)
        }
    }
}

extension PublicKeyCredentialRpEntity {
    public init(cbor: CBORValue) throws(CTAPStatus) {
        let map = try CBORMap(cbor)
        let id = try map.required(CodingKeys.id, String.init(cbor:))
        let name = try map.optional(CodingKeys.name, String.init(cbor:))
        self.init(id: id, name: name)
        try validate()
    }

    public var cbor: CBORValue {
        .keyed(CodingKeys.self, [(.id, .textString(id)), (.name, name.map(CBORValue.textString))])
    }
}

extension PublicKeyCredentialParameters {
    public init(cbor: CBORValue) throws(CTAPStatus) {
        let map = try CBORMap(cbor)
        let type = try map.required(CodingKeys.type, String.init(cbor:))
        let alg = try map.required(CodingKeys.alg, Int.init(cbor:))
        self.init(alg: alg, type: type)
        try validate()
    }

    public var cbor: CBORValue { .keyed(CodingKeys.self, [(.type, .textString(type)), (.alg, CBORValue(alg))]) }
}
