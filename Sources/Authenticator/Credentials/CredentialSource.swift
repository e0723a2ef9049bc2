import CTAP
import Foundation

/// A stored public key credential source (WebAuthn §4, "Public Key Credential
/// Source"): everything needed to sign for one discoverable credential.
public struct CredentialSource: Sendable, Hashable, Codable {
    /// The credential ID. Random for resident credentials.
    public var id: [UInt8]
    public var rp: PublicKeyCredentialRpEntity
    public var user: PublicKeyCredentialUserEntity
    public var algorithm: COSEAlgorithm
    /// The private key's raw representation: the P-256 scalar or the Ed25519 seed (32 bytes each).
    public var privateKey: [UInt8]
    /// The per-credential signature counter (WebAuthn §6.1.1).
    public var signCount: UInt32
    public var createdAt: Date
    /// The credProtect level (CTAP 2.1 §12.1): 1 userVerificationOptional, 2 …WithCredentialIDList, 3 …Required.
    public var credProtect: UInt8
    /// Whether the hmac-secret extension was enabled at creation (CTAP 2.1 §12.5). Optional so
    /// records written before it existed still decode.
    public var hmacSecret: Bool?
    /// The largeBlobKey (CTAP 2.1 §12.3), when the credential was created with one. Optional
    /// so records written before it existed still decode.
    public var largeBlobKey: [UInt8]?
    /// The credBlob (CTAP 2.1 §12.2), when one was stored at creation; optional like the above.
    public var credBlob: [UInt8]?
    /// Made for third-party payments (CTAP 2.2 §12.9); optional like the above.
    public var thirdPartyPayment: Bool?
    /// BE and BS (WebAuthn L3 §6.1.3); nil in records written before they existed, which are
    /// single-device credentials.
    public var backup: BackupFlags?
    /// False for a credential whose counter stays 0 (imported under the Credential Exchange
    /// Format's rule); nil, in records written before it existed, means true.
    public var countsSignatures: Bool?

    public init(
        id: [UInt8], rp: PublicKeyCredentialRpEntity, user: PublicKeyCredentialUserEntity,
        algorithm: COSEAlgorithm, privateKey: [UInt8], signCount: UInt32 = 0,
        createdAt: Date = Date(), credProtect: UInt8 = 1, hmacSecret: Bool? = nil, largeBlobKey: [UInt8]? = nil,
        credBlob: [UInt8]? = nil, thirdPartyPayment: Bool? = nil
    ) {
        self.thirdPartyPayment = thirdPartyPayment
        self.credBlob = credBlob
        self.hmacSecret = hmacSecret
        self.largeBlobKey = largeBlobKey
        self.id = id
        self.rp = rp
        self.user = user
        self.algorithm = algorithm
        self.privateKey = privateKey
        self.signCount = signCount
        self.createdAt = createdAt
        self.credProtect = credProtect
    }
}

extension CredentialSource {
    /// A record whose extension fields come from `extensions`.
    init(
        id: [UInt8], rp: PublicKeyCredentialRpEntity, user: PublicKeyCredentialUserEntity, algorithm: COSEAlgorithm,
        privateKey: [UInt8], signCount: UInt32, createdAt: Date, extensions: CredentialExtensionState
    ) {
        self.init(
            id: id, rp: rp, user: user, algorithm: algorithm, privateKey: privateKey, signCount: signCount,
            createdAt: createdAt,
            credProtect: UInt8(extensions.credProtect.rawValue), hmacSecret: extensions.hmacSecret ? true : nil,
            largeBlobKey: extensions.largeBlobKey, credBlob: extensions.credBlob,
            thirdPartyPayment: extensions.thirdPartyPayment ? true : nil)
    }

    /// The extension state the record keeps; its fields stay as they were first stored, so
    /// older keystores open unchanged.
    var extensionState: CredentialExtensionState {
        CredentialExtensionState(
            credProtect: CredentialProtection(rawValue: Int(credProtect)) ?? .userVerificationOptional,
            hmacSecret: hmacSecret == true, largeBlobKey: largeBlobKey, credBlob: credBlob,
            thirdPartyPayment: thirdPartyPayment == true)
    }
}
