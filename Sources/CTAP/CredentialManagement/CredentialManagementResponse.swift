import CBOR
import PasskeydMacros

/// The authenticatorCredentialManagement response (CTAP 2.1 §6.8). Which members are
/// present depends on the subcommand; deleteCredential and updateUserInformation
/// answer with no map at all.
@MemberwiseInit
public struct CredentialManagementResponse: CTAPStructure, CTAPCommandResponse, Sendable, Hashable {
    enum CodingKeys: Int, CodingKey {
        case existingResidentCredentialsCount = 0x01
        case maxPossibleRemainingResidentCredentialsCount, rp, rpIDHash
        case totalRPs, user, credentialID, publicKey, totalCredentials, credProtect, largeBlobKey, thirdPartyPayment
    }

    public var existingResidentCredentialsCount: Int?
    public var maxPossibleRemainingResidentCredentialsCount: Int?
    public var rp: PublicKeyCredentialRpEntity?
    public var rpIDHash: [UInt8]?
    /// Present only in the answer to enumerateRPsBegin.
    public var totalRPs: Int?
    public var user: PublicKeyCredentialUserEntity?
    public var credentialID: PublicKeyCredentialDescriptor?
    public var publicKey: COSEKey?
    /// Present only in the answer to enumerateCredentialsBegin.
    public var totalCredentials: Int?
    public var credProtect: Int?
    public var largeBlobKey: [UInt8]?
    /// Whether the credential was made for third-party payments (CTAP 2.2 §12.9).
    public var thirdPartyPayment: Bool?
}
