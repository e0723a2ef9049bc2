import CBOR

/// PublicKeyCredentialRpEntity (WebAuthn §5.4.2; CTAP 2.1 §6.1 `rp`).
public struct PublicKeyCredentialRpEntity: Sendable, Hashable, Codable {
    public var id: String
    public var name: String?

    public init(id: String, name: String? = nil) {
        self.id = id
        self.name = name
    }

    public var cbor: CBORValue {
        var m: [CBORValue: CBORValue] = ["id": .textString(id)]
        if let name { m["name"] = .textString(name) }
        return .map(m)
    }

    public init(cbor: CBORValue) throws(CTAPStatus) {
        let map = try CBORMap(cbor)
        id = try map.required("id", CBORRead.text)
        name = try map.optional("name", CBORRead.text)
    }
}

/// PublicKeyCredentialUserEntity (WebAuthn §5.4.3; CTAP 2.1 §6.1 `user`).
public struct PublicKeyCredentialUserEntity: Sendable, Hashable, Codable {
    /// The user handle: at most 64 opaque bytes.
    public var id: [UInt8]
    public var name: String?
    public var displayName: String?

    public init(id: [UInt8], name: String? = nil, displayName: String? = nil) {
        self.id = id
        self.name = name
        self.displayName = displayName
    }

    public var cbor: CBORValue {
        var m: [CBORValue: CBORValue] = ["id": .byteString(id)]
        if let name { m["name"] = .textString(name) }
        if let displayName { m["displayName"] = .textString(displayName) }
        return .map(m)
    }

    public init(cbor: CBORValue) throws(CTAPStatus) {
        let map = try CBORMap(cbor)
        id = try map.required("id", CBORRead.bytes)
        guard id.count <= 64 else { throw .invalidParameter }
        name = try map.optional("name", CBORRead.text)
        displayName = try map.optional("displayName", CBORRead.text)
    }
}

/// PublicKeyCredentialDescriptor (WebAuthn §5.8.3), as in allow and exclude lists.
public struct PublicKeyCredentialDescriptor: Sendable, Hashable {
    public var type: String
    public var id: [UInt8]
    public var transports: [String]?

    public init(id: [UInt8], type: String = "public-key", transports: [String]? = nil) {
        self.id = id
        self.type = type
        self.transports = transports
    }

    public var cbor: CBORValue {
        var m: [CBORValue: CBORValue] = ["type": .textString(type), "id": .byteString(id)]
        if let transports { m["transports"] = .array(transports.map { .textString($0) }) }
        return .map(m)
    }

    public init(cbor: CBORValue) throws(CTAPStatus) {
        let map = try CBORMap(cbor)
        type = try map.required("type", CBORRead.text)
        id = try map.required("id", CBORRead.bytes)
        transports = try map.optional("transports", CBORRead.textArray)
    }
}

/// PublicKeyCredentialParameters (WebAuthn §5.3): a credential type and algorithm.
public struct PublicKeyCredentialParameters: Sendable, Hashable {
    public var type: String
    /// Kept as a raw integer: unknown algorithms must be skipped, not rejected.
    public var alg: Int

    public init(alg: Int, type: String = "public-key") {
        self.type = type
        self.alg = alg
    }

    public var cbor: CBORValue { ["type": .textString(type), "alg": CBORValue(alg)] }

    public init(cbor: CBORValue) throws(CTAPStatus) {
        let map = try CBORMap(cbor)
        type = try map.required("type", CBORRead.text)
        alg = try map.required("alg", CBORRead.int)
    }
}
