import CBOR
import PasskeydMacros

/// A discoverable credential as passkeyd's credential transfer commands carry it (docs/vendor-commands.md):
/// what `passkeyctl export` writes out and `import` puts back. The private key travels only
/// when the export asked for it.
@MemberwiseInit
public struct CredentialRecord: CTAPStructure, Sendable, Hashable {
    enum CodingKeys: Int, CodingKey {
        case id = 0x01
        case rp, user, algorithm, signCount, privateKey, credProtect, backupEligible, backupState, createdAt,
            countsSignatures, largeBlobKey, discoverable, application
    }

    public var id: [UInt8]
    public var rp: PublicKeyCredentialRpEntity
    public var user: PublicKeyCredentialUserEntity
    /// A COSE algorithm identifier (WebAuthn L3 §5.8.5).
    public var algorithm: Int
    @Unsigned public var signCount: Int?
    /// The key's raw form in passkeyd's keystore: the P-256/384/521 scalar or the Ed25519 seed.
    public var privateKey: [UInt8]?
    /// 1 userVerificationOptional, 2 …WithCredentialIDList, 3 …Required (CTAP 2.1 §12.1).
    @Unsigned public var credProtect: Int?
    public var backupEligible: Bool?
    public var backupState: Bool?
    /// Unix time in seconds.
    @Unsigned public var createdAt: Int?
    /// False for a credential whose counter stays 0 for good, as the Credential Exchange Format
    /// requires of imported passkeys (CXF 1.0, PasskeyCredential); absent means true.
    public var countsSignatures: Bool?
    /// The credential's largeBlobKey (CTAP 2.1 §12.3), as credential management's
    /// enumerateCredentials returns it (§6.8.4): the platform reads and writes the credential's
    /// large blob with it. An import may carry one (32 bytes) for the credential to keep.
    public var largeBlobKey: [UInt8]?
    /// False for a non-discoverable credential (WebAuthn L3 §6.2.2: a server-side credential)
    /// under an ID of the caller's choosing: it answers requests that name it and is never
    /// discovered. Absent means true.
    public var discoverable: Bool?
    /// For a credential registered through U2F_REGISTER (listed by a daemon whose test controls
    /// keep what the device makes): the application parameter it is scoped to, as U2F gives the
    /// device the RP ID's hash alone (FIDO U2F Raw Message Formats §4.1); `rp.id` is then empty.
    /// An import never carries one.
    public var application: [UInt8]?
}
