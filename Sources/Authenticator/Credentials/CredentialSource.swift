import CTAP
import Foundation

/// A stored public key credential source (WebAuthn §4, "Public Key Credential
/// Source"): everything needed to sign for one discoverable credential.
public struct CredentialSource: Sendable, Hashable {
    /// The credential ID. Random for resident credentials and for the non-discoverable ones a
    /// store keeps (`CredentialStore.keepNonDiscoverable`).
    public var id: [UInt8]
    public var rp: PublicKeyCredentialRpEntity
    public var user: PublicKeyCredentialUserEntity
    public var algorithm: COSEAlgorithm
    /// The private key's raw representation: the P-256 scalar or the Ed25519 seed (32 bytes each).
    public var privateKey: [UInt8]
    /// The per-credential signature counter (WebAuthn §6.1.1).
    public var signCount: UInt32
    public var createdAt: Date
    /// What extensions keep with the credential, each part under a record member of its own
    /// (`ExtensionStoredPart`); a record written before a part existed reads it as absent.
    public var extensions: CredentialExtensionState
    /// BE and BS (WebAuthn L3 §6.1.3); nil in records written before they existed, which are
    /// single-device credentials.
    public var backup: BackupFlags?
    /// False for a credential whose counter stays 0 (imported under the Credential Exchange
    /// Format's rule); nil, in records written before it existed, means true.
    public var countsSignatures: Bool?
    /// The application parameter of a credential registered through U2F_REGISTER and kept by
    /// the test controls (`CredentialStore.keepNonDiscoverable`): U2F gives the device the RP
    /// ID's hash alone (FIDO U2F Raw Message Formats §4.1), so `rp.id` is empty and this is
    /// what the credential is scoped to. Nil for every other credential.
    public var application: [UInt8]?

    public init(
        id: [UInt8], rp: PublicKeyCredentialRpEntity, user: PublicKeyCredentialUserEntity, algorithm: COSEAlgorithm,
        privateKey: [UInt8], signCount: UInt32 = 0, createdAt: Date = Date(), extensions: CredentialExtensionState
    ) {
        self.id = id
        self.rp = rp
        self.user = user
        self.algorithm = algorithm
        self.privateKey = privateKey
        self.signCount = signCount
        self.createdAt = createdAt
        self.extensions = extensions
    }

    /// The same with the record members of the extensions that existed before parts were
    /// declarations, by name (each has its accessor in its extension's file); a newer part is
    /// set through `extensions`.
    public init(
        id: [UInt8], rp: PublicKeyCredentialRpEntity, user: PublicKeyCredentialUserEntity,
        algorithm: COSEAlgorithm, privateKey: [UInt8], signCount: UInt32 = 0,
        createdAt: Date = Date(), credProtect: UInt8 = 1, hmacSecret: Bool? = nil, largeBlobKey: [UInt8]? = nil,
        credBlob: [UInt8]? = nil, thirdPartyPayment: Bool? = nil
    ) {
        self.init(
            id: id, rp: rp, user: user, algorithm: algorithm, privateKey: privateKey, signCount: signCount,
            createdAt: createdAt, extensions: CredentialExtensionState())
        self.credProtect = credProtect
        self.hmacSecret = hmacSecret
        self.largeBlobKey = largeBlobKey
        self.credBlob = credBlob
        self.thirdPartyPayment = thirdPartyPayment
    }

    /// What the record holds for an extension's part: the accessors the extensions' files give
    /// `CredentialSource` are this.
    subscript<Stored, Value>(recorded part: ExtensionStoredPart<Stored, Value>) -> Stored? {
        get { extensions[recorded: part] }
        set { extensions[recorded: part] = newValue }
    }
}

/// The record's members are the credential's own and, beside them, each extension part's, so
/// a record reads as it did when the parts were members of `CredentialSource` itself.
extension CredentialSource: Codable {
    private enum CodingKeys: String, CodingKey {
        case id, rp, user, algorithm, privateKey, signCount, createdAt, backup, countsSignatures, application
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            id: try container.decode([UInt8].self, forKey: .id),
            rp: try container.decode(PublicKeyCredentialRpEntity.self, forKey: .rp),
            user: try container.decode(PublicKeyCredentialUserEntity.self, forKey: .user),
            algorithm: try container.decode(COSEAlgorithm.self, forKey: .algorithm),
            privateKey: try container.decode([UInt8].self, forKey: .privateKey),
            signCount: try container.decode(UInt32.self, forKey: .signCount),
            createdAt: try container.decode(Date.self, forKey: .createdAt),
            extensions: try CredentialExtensionState(recordMembersFrom: decoder))
        backup = try container.decodeIfPresent(BackupFlags.self, forKey: .backup)
        countsSignatures = try container.decodeIfPresent(Bool.self, forKey: .countsSignatures)
        application = try container.decodeIfPresent([UInt8].self, forKey: .application)
    }

    public func encode(to encoder: any Encoder) throws {
        // Each value encoded as its own type (the keystore's encoder writes `[UInt8]` as bytes);
        // absent optionals left out, as `encodeIfPresent` leaves them.
        let members: [(CodingKeys, (any Encodable)?)] = [
            (.id, id), (.rp, rp), (.user, user), (.algorithm, algorithm), (.privateKey, privateKey),
            (.signCount, signCount), (.createdAt, createdAt), (.backup, backup), (.countsSignatures, countsSignatures),
            (.application, application)
        ]
        var container = encoder.container(keyedBy: CodingKeys.self)
        for case (let key, let value?) in members { try container.encode(value, forKey: key) }
        try extensions.encodeRecordMembers(to: encoder)
    }
}

extension CredentialSource {
    /// Whether the credential is scoped to `rpID`: its RP ID is that one, or, for one registered
    /// through U2F, its application parameter is that RP ID's hash (CTAP 2.1 §10: the
    /// application parameter is the rpIdHash, so a CTAP2 request for that RP finds it, as it
    /// finds a wrapped U2F key handle).
    func isScoped(to rpID: String) -> Bool {
        guard let application else { return rp.id == rpID }
        return Authenticator.sha256(Array(rpID.utf8)) == application
    }

    /// The hash of the RP ID the credential is scoped to (CTAP 2.1 §6.1.2 rpIdHash; U2F's
    /// application parameter).
    var rpIDHash: [UInt8] { application ?? Authenticator.sha256(Array(rp.id.utf8)) }
}
