import CBOR
import PasskeydMacros

/// The `subCommandParams` map of authenticatorCredentialManagement (CTAP 2.1 §6.8).
@MemberwiseInit
public struct CredentialManagementParameters: CTAPStructure, Sendable, Hashable {
    enum CodingKeys: Int, CodingKey {
        case rpIDHash = 0x01
        case credentialID, user
    }

    /// SHA-256 of the RP ID (enumerateCredentialsBegin).
    public var rpIDHash: [UInt8]?
    /// The credential to delete or update.
    public var credentialID: PublicKeyCredentialDescriptor?
    /// The replacement user entity (updateUserInformation).
    public var user: PublicKeyCredentialUserEntity?
}
