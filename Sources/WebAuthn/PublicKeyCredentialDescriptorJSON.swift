import CTAP

/// PublicKeyCredentialDescriptorJSON (WebAuthn L3 §5.1.8), for allow and exclude lists: the CTAP
/// `PublicKeyCredentialDescriptor` with its ID base64url, converted to and from it in one place each.
///
/// `type` and `transports` stay strings: a client skips descriptors of an unknown
/// type and ignores unknown transports (WebAuthn L3 §5.8.3, §5.8.4), so they must survive decoding.
public struct PublicKeyCredentialDescriptorJSON: Sendable, Hashable, Codable {
    public var type: String
    @Base64URLEncoded public var id: [UInt8]
    public var transports: [String]?

    public init(_ descriptor: PublicKeyCredentialDescriptor) {
        type = descriptor.type
        id = descriptor.id
        transports = descriptor.transports
    }

    public init(id: [UInt8], type: String = "public-key", transports: [String]? = nil) {
        self.init(PublicKeyCredentialDescriptor(id: id, type: type, transports: transports))
    }

    public var ctap: PublicKeyCredentialDescriptor {
        PublicKeyCredentialDescriptor(id: id, type: type, transports: transports)
    }
}
