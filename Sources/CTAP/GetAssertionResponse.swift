import CBOR

/// authenticatorGetAssertion / authenticatorGetNextAssertion response (CTAP 2.1 §6.2.2).
public struct GetAssertionResponse: Sendable, Hashable {
    public var credential: PublicKeyCredentialDescriptor
    public var authenticatorData: [UInt8]
    public var signature: [UInt8]
    /// Present for discoverable credentials; names only when the user was verified.
    public var user: PublicKeyCredentialUserEntity?
    /// Present on the first response of a discoverable request with more than one account.
    public var numberOfCredentials: Int?
    public var userSelected: Bool?

    public init(credential: PublicKeyCredentialDescriptor, authenticatorData: [UInt8], signature: [UInt8],
                user: PublicKeyCredentialUserEntity? = nil, numberOfCredentials: Int? = nil, userSelected: Bool? = nil) {
        self.credential = credential
        self.authenticatorData = authenticatorData
        self.signature = signature
        self.user = user
        self.numberOfCredentials = numberOfCredentials
        self.userSelected = userSelected
    }

    public var cbor: CBORValue {
        .intKeyed([
            (0x01, credential.cbor),
            (0x02, .byteString(authenticatorData)),
            (0x03, .byteString(signature)),
            (0x04, user?.cbor),
            (0x05, numberOfCredentials.map { CBORValue($0) }),
            (0x06, userSelected.map { .boolean($0) }),
        ])
    }

    public init(cbor: CBORValue) throws(CTAPStatus) {
        let map = try CBORMap(cbor)
        credential = try map.required(0x01, PublicKeyCredentialDescriptor.init(cbor:))
        authenticatorData = try map.required(0x02, CBORRead.bytes)
        signature = try map.required(0x03, CBORRead.bytes)
        user = try map.optional(0x04, PublicKeyCredentialUserEntity.init(cbor:))
        numberOfCredentials = try map.optional(0x05, CBORRead.int)
        userSelected = try map.optional(0x06, CBORRead.bool)
    }
}
