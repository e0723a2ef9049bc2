import CBOR

/// authenticatorGetAssertion / authenticatorGetNextAssertion response (CTAP 2.1 §6.2.2).
/// Coded by hand, as `GetAssertionRequest` is, with `CTAPStructure`'s statuses and its keys
/// named through `CodingKeys`, the only key table.
public struct GetAssertionResponse: CTAPStructure, Sendable, Hashable {
    enum CodingKeys: Int, CodingKey {
        case credential = 0x01
        case authenticatorData, signature, user, numberOfCredentials, userSelected, largeBlobKey
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

    public init(
        credential: PublicKeyCredentialDescriptor, authenticatorData: [UInt8], signature: [UInt8],
        user: PublicKeyCredentialUserEntity? = nil, numberOfCredentials: Int? = nil, userSelected: Bool? = nil,
        largeBlobKey: [UInt8]? = nil
    ) {
        self.largeBlobKey = largeBlobKey
        self.credential = credential
        self.authenticatorData = authenticatorData
        self.signature = signature
        self.user = user
        self.numberOfCredentials = numberOfCredentials
        self.userSelected = userSelected
    }

    public init(cbor: CBORValue) throws(CTAPStatus) {
        let map = try CBORMap(cbor)
        let credential = try map.required(CodingKeys.credential, PublicKeyCredentialDescriptor.init(cbor:))
        let authenticatorData = try map.required(CodingKeys.authenticatorData, [UInt8].init(cbor:))
        let signature = try map.required(CodingKeys.signature, [UInt8].init(cbor:))
        let user = try map.optional(CodingKeys.user, PublicKeyCredentialUserEntity.init(cbor:))
        let numberOfCredentials = try map.optional(CodingKeys.numberOfCredentials, Int.init(cbor:))
        let userSelected = try map.optional(CodingKeys.userSelected, Bool.init(cbor:))
        let largeBlobKey = try map.optional(CodingKeys.largeBlobKey, [UInt8].init(cbor:))
        self.init(
            credential: credential, authenticatorData: authenticatorData, signature: signature, user: user,
            numberOfCredentials: numberOfCredentials, userSelected: userSelected, largeBlobKey: largeBlobKey)
    }

    /// The response's members, written as `cbor.encoded` writes them (CTAP 2.1 §8's canonical
    /// form: numeric keys in order), without building and sorting a `CBORValue` tree: every
    /// sign-in's answer is one of these.
    public func encode(into writer: inout CBORWriter) {
        let count =
            3 + (user == nil ? 0 : 1) + (numberOfCredentials == nil ? 0 : 1) + (userSelected == nil ? 0 : 1)
            + (largeBlobKey == nil ? 0 : 1)
        writer.mapHeader(count: count)
        writer.key(CodingKeys.credential)
        credential.encode(into: &writer)
        writer.key(CodingKeys.authenticatorData)
        writer.byteString(authenticatorData)
        writer.key(CodingKeys.signature)
        writer.byteString(signature)
        if let user {
            writer.key(CodingKeys.user)
            user.encode(into: &writer)
        }
        if let numberOfCredentials {
            writer.key(CodingKeys.numberOfCredentials)
            writer.integer(numberOfCredentials)
        }
        if let userSelected {
            writer.key(CodingKeys.userSelected)
            writer.boolean(userSelected)
        }
        if let largeBlobKey {
            writer.key(CodingKeys.largeBlobKey)
            writer.byteString(largeBlobKey)
        }
    }

    public var cbor: CBORValue {
        .keyed(
            CodingKeys.self,
            [
                (.credential, credential.cbor),
                (.authenticatorData, .byteString(authenticatorData)),
                (.signature, .byteString(signature)),
                (.user, user?.cbor),
                (.numberOfCredentials, numberOfCredentials.map { CBORValue($0) }),
                (.userSelected, userSelected.map(CBORValue.boolean)),
                (.largeBlobKey, largeBlobKey.map(CBORValue.byteString))
            ])
    }
}
