import CBOR

/// The authenticatorCredentialManagement response (CTAP 2.1 §6.8). Which members are
/// present depends on the subcommand; deleteCredential and updateUserInformation
/// answer with no map at all.
public struct CredentialManagementResponse: CTAPStructure, Sendable, Hashable {
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

    public init(
        existingResidentCredentialsCount: Int? = nil, maxPossibleRemainingResidentCredentialsCount: Int? = nil,
        rp: PublicKeyCredentialRpEntity? = nil, rpIDHash: [UInt8]? = nil, totalRPs: Int? = nil,
        user: PublicKeyCredentialUserEntity? = nil, credentialID: PublicKeyCredentialDescriptor? = nil,
        publicKey: COSEKey? = nil, totalCredentials: Int? = nil, credProtect: Int? = nil, largeBlobKey: [UInt8]? = nil,
        thirdPartyPayment: Bool? = nil
    ) {
        self.thirdPartyPayment = thirdPartyPayment
        self.existingResidentCredentialsCount = existingResidentCredentialsCount
        self.maxPossibleRemainingResidentCredentialsCount = maxPossibleRemainingResidentCredentialsCount
        self.rp = rp
        self.rpIDHash = rpIDHash
        self.totalRPs = totalRPs
        self.user = user
        self.credentialID = credentialID
        self.publicKey = publicKey
        self.totalCredentials = totalCredentials
        self.credProtect = credProtect
        self.largeBlobKey = largeBlobKey
    }
}
