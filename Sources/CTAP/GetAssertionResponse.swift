import CBOR

/// authenticatorGetAssertion / authenticatorGetNextAssertion response (CTAP 2.1 §6.2.2).
public struct GetAssertionResponse: CTAPStructure, Sendable, Hashable {
    enum CodingKeys: Int, CodingKey {
        case credential = 0x01, authenticatorData, signature, user, numberOfCredentials, userSelected, largeBlobKey
    }

    public var credential: PublicKeyCredentialDescriptor
    public var authenticatorData: [UInt8]
    public var signature: [UInt8]
    /// Present for discoverable credentials; names only when the user was verified.
    public var user: PublicKeyCredentialUserEntity?
    /// Present on the first response of a discoverable request with more than one account.
    public var numberOfCredentials: Int?
    public var userSelected: Bool?
    /// The credential's largeBlobKey, when the largeBlobKey extension asked for it (CTAP 2.1 §12.3).
    public var largeBlobKey: [UInt8]?

    public init(credential: PublicKeyCredentialDescriptor, authenticatorData: [UInt8], signature: [UInt8],
                user: PublicKeyCredentialUserEntity? = nil, numberOfCredentials: Int? = nil, userSelected: Bool? = nil,
                largeBlobKey: [UInt8]? = nil) {
        self.largeBlobKey = largeBlobKey
        self.credential = credential
        self.authenticatorData = authenticatorData
        self.signature = signature
        self.user = user
        self.numberOfCredentials = numberOfCredentials
        self.userSelected = userSelected
    }
}
