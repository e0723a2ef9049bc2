import CBOR

/// The hmac-secret extension (CTAP 2.1 §12.5): `true` at creation enables it on the credential
/// (and is echoed back); at assertion the platform sends encrypted salts and receives the
/// encrypted HMAC outputs as a byte string.
public enum HMACSecret: CTAPExtension {
    public static let identifier = "hmac-secret"
    public typealias MakeCredentialInput = Bool
    public typealias MakeCredentialOutput = Bool
    public typealias GetAssertionInput = HMACSecretInput
    /// The outputs, encrypted under the shared secret (32 or 64 bytes before encryption).
    public typealias GetAssertionOutput = [UInt8]
}

/// hmac-secret's getAssertion input (CTAP 2.1 §12.5): the platform's key agreement key,
/// one or two encrypted 32-byte salts, their MAC and the PIN/UV protocol that made them.
public struct HMACSecretInput: CTAPStructure, Sendable, Hashable {
    enum CodingKeys: Int, CodingKey {
        case keyAgreement = 0x01
        case saltEnc, saltAuth, pinUvAuthProtocol
    }

    public var keyAgreement: COSEKey
    public var saltEnc: [UInt8]
    public var saltAuth: [UInt8]
    /// Absent from CTAP 2.0 platforms, which mean protocol one.
    public var pinUvAuthProtocol: PinUvAuthProtocolVersion?

    public var version: PinUvAuthProtocolVersion { pinUvAuthProtocol ?? .one }

    public init(keyAgreement: COSEKey, saltEnc: [UInt8], saltAuth: [UInt8], version: PinUvAuthProtocolVersion) {
        self.keyAgreement = keyAgreement
        self.saltEnc = saltEnc
        self.saltAuth = saltAuth
        self.pinUvAuthProtocol = version
    }
}
