import CBOR
import CTAP
import WebAuthn

/// A credential record (WebAuthn L3 §7.1 step 27): what a relying party stores after a
/// successful registration and updates after each authentication.
public struct RegisteredCredential: Sendable, Hashable {
    /// The credential ID.
    public var id: [UInt8]
    /// The credential's public key, which verifies its assertions.
    public var publicKey: COSEKey
    /// The last signature counter seen; 0 when the authenticator keeps none.
    public var signCount: UInt32
    /// The user handle of the account the credential was registered to.
    public var userHandle: [UInt8]
    /// The transports the client reported at registration, for `descriptor`.
    public var transports: [String]
    /// BE: fixed for the credential's lifetime (WebAuthn L3 §6.1.3).
    public var backupEligible: Bool
    /// BS: may change with each ceremony.
    public var backedUp: Bool
    /// The authenticator model's AAGUID from the attested credential data (zeros when withheld).
    public var aaguid: [UInt8]
    /// The attestation statement format it was registered with (`none` or `packed`).
    public var attestationFormat: String

    /// A record from its parts, e.g. as read back from the server's database.
    public init(
        id: [UInt8], publicKey: COSEKey, signCount: UInt32, userHandle: [UInt8], transports: [String] = [],
        backupEligible: Bool = false, backedUp: Bool = false,
        aaguid: [UInt8] = [UInt8](repeating: 0, count: 16), attestationFormat: String = "none"
    ) {
        self.id = id
        self.publicKey = publicKey
        self.signCount = signCount
        self.userHandle = userHandle
        self.transports = transports
        self.backupEligible = backupEligible
        self.backedUp = backedUp
        self.aaguid = aaguid
        self.attestationFormat = attestationFormat
    }

    /// The public key as a COSE_Key, for storage.
    public var publicKeyCOSE: [UInt8] { publicKey.cbor.encoded }

    /// The descriptor to list in `allowCredentials` or `excludeCredentials`.
    public var descriptor: PublicKeyCredentialDescriptorJSON {
        PublicKeyCredentialDescriptorJSON(id: id, transports: transports.isEmpty ? nil : transports)
    }
}
