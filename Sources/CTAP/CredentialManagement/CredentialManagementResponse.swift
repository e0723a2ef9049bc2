import CBOR

/// The authenticatorCredentialManagement response (CTAP 2.1 §6.8). Which members are
/// present depends on the subcommand; deleteCredential and updateUserInformation
/// answer with no map at all.
public struct CredentialManagementResponse: Sendable, Hashable {
    enum Key {
        static let existingResidentCredentialsCount: CBORValue = 0x01
        static let maxPossibleRemainingResidentCredentialsCount: CBORValue = 0x02
        static let rp: CBORValue = 0x03
        static let rpIDHash: CBORValue = 0x04
        static let totalRPs: CBORValue = 0x05
        static let user: CBORValue = 0x06
        static let credentialID: CBORValue = 0x07
        static let publicKey: CBORValue = 0x08
        static let totalCredentials: CBORValue = 0x09
        static let credProtect: CBORValue = 0x0A
        static let largeBlobKey: CBORValue = 0x0B
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

    public init(
        existingResidentCredentialsCount: Int? = nil, maxPossibleRemainingResidentCredentialsCount: Int? = nil,
        rp: PublicKeyCredentialRpEntity? = nil, rpIDHash: [UInt8]? = nil, totalRPs: Int? = nil,
        user: PublicKeyCredentialUserEntity? = nil, credentialID: PublicKeyCredentialDescriptor? = nil,
        publicKey: COSEKey? = nil, totalCredentials: Int? = nil, credProtect: Int? = nil, largeBlobKey: [UInt8]? = nil
    ) {
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

    public var cbor: CBORValue {
        .intKeyed([
            (0x01, existingResidentCredentialsCount.map { CBORValue($0) }),
            (0x02, maxPossibleRemainingResidentCredentialsCount.map { CBORValue($0) }),
            (0x03, rp?.cbor),
            (0x04, rpIDHash.map { .byteString($0) }),
            (0x05, totalRPs.map { CBORValue($0) }),
            (0x06, user?.cbor),
            (0x07, credentialID?.cbor),
            (0x08, publicKey?.cbor),
            (0x09, totalCredentials.map { CBORValue($0) }),
            (0x0A, credProtect.map { CBORValue($0) }),
            (0x0B, largeBlobKey.map { .byteString($0) }),
        ])
    }

    public init(cbor: CBORValue) throws(CTAPStatus) {
        let map = try CBORMap(cbor)
        existingResidentCredentialsCount = try map.optional(Key.existingResidentCredentialsCount, CBORRead.int)
        maxPossibleRemainingResidentCredentialsCount = try map.optional(Key.maxPossibleRemainingResidentCredentialsCount, CBORRead.int)
        rp = try map.optional(Key.rp, CBORRead.any).map { (v: CBORValue) throws(CTAPStatus) in try PublicKeyCredentialRpEntity(cbor: v) }
        rpIDHash = try map.optional(Key.rpIDHash, CBORRead.bytes)
        totalRPs = try map.optional(Key.totalRPs, CBORRead.int)
        user = try map.optional(Key.user, CBORRead.any).map { (v: CBORValue) throws(CTAPStatus) in try PublicKeyCredentialUserEntity(cbor: v) }
        credentialID = try map.optional(Key.credentialID, CBORRead.any).map { (v: CBORValue) throws(CTAPStatus) in try PublicKeyCredentialDescriptor(cbor: v) }
        publicKey = try map.optional(Key.publicKey, CBORRead.any).map { (v: CBORValue) throws(CTAPStatus) in try COSEKey(cbor: v) }
        totalCredentials = try map.optional(Key.totalCredentials, CBORRead.int)
        credProtect = try map.optional(Key.credProtect, CBORRead.int)
        largeBlobKey = try map.optional(Key.largeBlobKey, CBORRead.bytes)
    }
}
