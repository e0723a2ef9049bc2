import CTAP

/// PublicKeyCredentialDescriptorJSON (WebAuthn L3 §5.1.8), for allow and exclude lists.
///
/// `type` and `transports` stay strings: a client skips descriptors of an unknown
/// type and ignores unknown transports (WebAuthn L3 §5.8.3, §5.8.4), so they must survive decoding.
public struct PublicKeyCredentialDescriptorJSON: Sendable, Hashable, Codable {
    public var type: String
    public var id: [UInt8]
    public var transports: [String]?

    public init(id: [UInt8], type: String = "public-key", transports: [String]? = nil) {
        self.id = id
        self.type = type
        self.transports = transports
    }

    enum CodingKeys: String, CodingKey { case type, id, transports }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        type = try c.decode(String.self, forKey: .type)
        id = try c.decodeBase64URL(forKey: .id)
        transports = try c.decodeIfPresent([String].self, forKey: .transports)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(type, forKey: .type)
        try c.encodeBase64URL(id, forKey: .id)
        try c.encodeIfPresent(transports, forKey: .transports)
    }

    public var ctap: PublicKeyCredentialDescriptor {
        PublicKeyCredentialDescriptor(id: id, type: type, transports: transports)
    }
}
