import CTAP
import PasskeydMacros

/// One discoverable credential, as credential enumeration reports it (CTAP 2.1 §6.8.4).
@MemberwiseInit
public struct ResidentCredential: Sendable, Hashable {
    /// The account: user handle, and name and display name when the authenticator stored them.
    public var user: PublicKeyCredentialUserEntity
    /// The credential ID an RP names it by.
    public var credentialID: [UInt8]
    /// The credential's public key.
    public var publicKey: COSEKey
    /// The credProtect level (CTAP 2.1 §12.1), when the authenticator reports one.
    public var credProtect: CredentialProtection?
    /// The key of the credential's large blob (CTAP 2.1 §12.3), when it has one.
    public var largeBlobKey: [UInt8]?

    /// A credential as enumeration reports it; the members are as named.

    init(_ response: CredentialManagementResponse) throws(CTAP2Error) {
        guard let user = response.user, let id = response.credentialID?.id, let key = response.publicKey else {
            throw .malformedResponse
        }
        self.init(
            user: user, credentialID: id, publicKey: key,
            credProtect: response.credProtect.flatMap(CredentialProtection.init(rawValue:)),
            largeBlobKey: response.largeBlobKey)
    }
}
