import CBOR

/// The `subCommandParams` map of authenticatorCredentialManagement (CTAP 2.1 §6.8).
public struct CredentialManagementParameters: Sendable, Hashable {
    enum Key {
        static let rpIDHash: CBORValue = 0x01
        static let credentialID: CBORValue = 0x02
        static let user: CBORValue = 0x03
    }

    /// SHA-256 of the RP ID (enumerateCredentialsBegin).
    public var rpIDHash: [UInt8]?
    /// The credential to delete or update.
    public var credentialID: PublicKeyCredentialDescriptor?
    /// The replacement user entity (updateUserInformation).
    public var user: PublicKeyCredentialUserEntity?

    public init(rpIDHash: [UInt8]? = nil, credentialID: PublicKeyCredentialDescriptor? = nil, user: PublicKeyCredentialUserEntity? = nil) {
        self.rpIDHash = rpIDHash
        self.credentialID = credentialID
        self.user = user
    }

    public var cbor: CBORValue {
        .intKeyed([
            (0x01, rpIDHash.map { .byteString($0) }),
            (0x02, credentialID?.cbor),
            (0x03, user?.cbor),
        ])
    }

    public init(cbor: CBORValue) throws(CTAPStatus) {
        let map = try CBORMap(cbor)
        rpIDHash = try map.optional(Key.rpIDHash, CBORRead.bytes)
        credentialID = try map.optional(Key.credentialID, CBORRead.any).map { (v: CBORValue) throws(CTAPStatus) in try PublicKeyCredentialDescriptor(cbor: v) }
        user = try map.optional(Key.user, CBORRead.any).map { (v: CBORValue) throws(CTAPStatus) in try PublicKeyCredentialUserEntity(cbor: v) }
    }
}
