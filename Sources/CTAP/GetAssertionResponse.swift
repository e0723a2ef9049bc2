import CBOR

/// authenticatorGetAssertion / authenticatorGetNextAssertion response (CTAP 2.1 §6.2.2).
/// Coded by hand, as `GetAssertionRequest` is, with `CTAPStructure`'s statuses.
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

    public init(cbor: CBORValue) throws(CTAPStatus) {
        let map = try CBORMap(cbor)
        let credential = try map.required(1, PublicKeyCredentialDescriptor.init(cbor:))
        let authenticatorData = try map.required(2, [UInt8].init(cbor:))
        let signature = try map.required(3, [UInt8].init(cbor:))
        let user = try map.optional(4, PublicKeyCredentialUserEntity.init(cbor:))
        let numberOfCredentials = try map.optional(5, Int.init(cbor:))
        let userSelected = try map.optional(6, Bool.init(cbor:))
        let largeBlobKey = try map.optional(7, [UInt8].init(cbor:))
        self.init(credential: credential, authenticatorData: authenticatorData, signature: signature, user: user,
                  numberOfCredentials: numberOfCredentials, userSelected: userSelected, largeBlobKey: largeBlobKey)
    }

    /// The response's members, written as `cbor.encoded` writes them (CTAP 2.1 §8's canonical
    /// form: numeric keys in order; text keys shorter first, then bytewise), without building
    /// and sorting a `CBORValue` tree: every sign-in's answer is one of these.
    public func encode(into writer: inout CBORWriter) {
        let count = 3 + (user == nil ? 0 : 1) + (numberOfCredentials == nil ? 0 : 1) + (userSelected == nil ? 0 : 1)
            + (largeBlobKey == nil ? 0 : 1)
        writer.mapHeader(count: count)
        writer.unsigned(1)
        // "id" (62 69 64) before "type" (64 …) before "transports" (6A …).
        writer.mapHeader(count: credential.transports == nil ? 2 : 3)
        writer.textString("id")
        writer.byteString(credential.id)
        writer.textString("type")
        writer.textString(credential.type)
        if let transports = credential.transports {
            writer.textString("transports")
            writer.value(transports.cborArray)
        }
        writer.unsigned(2)
        writer.byteString(authenticatorData)
        writer.unsigned(3)
        writer.byteString(signature)
        if let user {
            writer.unsigned(4)
            // "id" before "name" (64 …) before "displayName" (6B …).
            writer.mapHeader(count: 1 + (user.name == nil ? 0 : 1) + (user.displayName == nil ? 0 : 1))
            writer.textString("id")
            writer.byteString(user.id)
            if let name = user.name {
                writer.textString("name")
                writer.textString(name)
            }
            if let displayName = user.displayName {
                writer.textString("displayName")
                writer.textString(displayName)
            }
        }
        if let numberOfCredentials {
            writer.unsigned(5)
            writer.integer(numberOfCredentials)
        }
        if let userSelected {
            writer.unsigned(6)
            writer.boolean(userSelected)
        }
        if let largeBlobKey {
            writer.unsigned(7)
            writer.byteString(largeBlobKey)
        }
    }

    public var cbor: CBORValue {
        .intKeyed([
            (1, credential.cbor),
            (2, .byteString(authenticatorData)),
            (3, .byteString(signature)),
            (4, user?.cbor),
            (5, numberOfCredentials.map { CBORValue($0) }),
            (6, userSelected.map(CBORValue.boolean)),
            (7, largeBlobKey.map(CBORValue.byteString)),
        ])
    }
}
