import CTAP
import PasskeydMacros

/// PublicKeyCredentialUserEntityJSON (WebAuthn L3 §5.1.8): the CTAP `PublicKeyCredentialUserEntity`
/// with its handle base64url and `name`, `displayName` required, as WebAuthn's dictionary has them
/// (§5.4.3); converted to and from the CTAP entity in one place each.
@MemberwiseInit
public struct PublicKeyCredentialUserEntityJSON: Sendable, Hashable, Codable {
    /// The user handle: 1 to 64 opaque bytes (WebAuthn L3 §5.4.3).
    @Base64URLEncoded public var id: [UInt8]
    public var name: String
    public var displayName: String

    /// The JSON form of a CTAP user entity; a member the authenticator left out (CTAP 2.1 §6.2:
    /// `name` and `displayName` are optional there) becomes the empty string.
    public init(_ user: PublicKeyCredentialUserEntity) {
        self.init(id: user.id, name: user.name ?? "", displayName: user.displayName ?? "")
    }

    public var ctap: PublicKeyCredentialUserEntity {
        PublicKeyCredentialUserEntity(id: id, name: name, displayName: displayName)
    }
}
