import CTAP
import PasskeydMacros

/// PublicKeyCredentialRpEntity as it appears in `PublicKeyCredentialCreationOptionsJSON.rp`
/// (WebAuthn L3 §5.4.2): `name` is required, `id` optional (the client then uses the caller's
/// effective domain).
@MemberwiseInit
public struct PublicKeyCredentialRpEntityJSON: Sendable, Hashable, Codable {
    public var id: String?
    public var name: String

    /// The CTAP form, once the client has settled the RP ID.
    public func ctap(rpID: String) -> PublicKeyCredentialRpEntity {
        PublicKeyCredentialRpEntity(id: rpID, name: name)
    }
}
