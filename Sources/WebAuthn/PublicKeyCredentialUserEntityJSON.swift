import CTAP

/// PublicKeyCredentialUserEntityJSON (WebAuthn L3 §5.1.8): the user handle travels base64url.
public struct PublicKeyCredentialUserEntityJSON: Sendable, Hashable, Codable {
    /// The user handle: 1 to 64 opaque bytes (WebAuthn L3 §5.4.3).
    public var id: [UInt8]
    public var name: String
    public var displayName: String

    public init(id: [UInt8], name: String, displayName: String) {
        self.id = id
        self.name = name
        self.displayName = displayName
    }

    enum CodingKeys: String, CodingKey { case id, name, displayName }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        id = try c.decodeBase64URL(forKey: .id)
        name = try c.decode(String.self, forKey: .name)
        displayName = try c.decode(String.self, forKey: .displayName)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encodeBase64URL(id, forKey: .id)
        try c.encode(name, forKey: .name)
        try c.encode(displayName, forKey: .displayName)
    }

    public var ctap: PublicKeyCredentialUserEntity {
        PublicKeyCredentialUserEntity(id: id, name: name, displayName: displayName)
    }
}
