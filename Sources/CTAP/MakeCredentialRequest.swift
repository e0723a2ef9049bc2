import CBOR

/// authenticatorMakeCredential parameters (CTAP 2.1 §6.1).
public struct MakeCredentialRequest: CTAPStructure, Sendable, Hashable {
    enum CodingKeys: Int, CodingKey {
        case clientDataHash = 0x01, rp, user, pubKeyCredParams, excludeList, extensions, options
        case pinUvAuthParam, pinUvAuthProtocol, enterpriseAttestation, attestationFormatsPreference
    }

    public var clientDataHash: [UInt8]
    public var rp: PublicKeyCredentialRpEntity
    public var user: PublicKeyCredentialUserEntity
    public var pubKeyCredParams: [PublicKeyCredentialParameters]
    @Defaulted public var excludeList: [PublicKeyCredentialDescriptor]
    /// Extension inputs (CTAP 2.1 §12); the authenticator reads the ones it supports.
    @Defaulted public var extensions: ExtensionMap
    @Defaulted public var options: RequestOptions
    public var pinUvAuthParam: [UInt8]?
    @Unsigned public var pinUvAuthProtocol: Int?
    public var enterpriseAttestation: Int?
    /// CTAP 2.2 §6.1: attestation formats the platform prefers, most preferred first.
    public var attestationFormatsPreference: [String]?

    public init(
        clientDataHash: [UInt8], rp: PublicKeyCredentialRpEntity, user: PublicKeyCredentialUserEntity,
        pubKeyCredParams: [PublicKeyCredentialParameters], excludeList: [PublicKeyCredentialDescriptor] = [],
        extensions: ExtensionMap = ExtensionMap(), options: RequestOptions = RequestOptions(),
        pinUvAuthParam: [UInt8]? = nil, pinUvAuthProtocol: Int? = nil, enterpriseAttestation: Int? = nil,
        attestationFormatsPreference: [String]? = nil
    ) {
        self.clientDataHash = clientDataHash
        self.rp = rp
        self.user = user
        self.pubKeyCredParams = pubKeyCredParams
        self.excludeList = excludeList
        self.extensions = extensions
        self.options = options
        self.pinUvAuthParam = pinUvAuthParam
        self.pinUvAuthProtocol = pinUvAuthProtocol
        self.enterpriseAttestation = enterpriseAttestation
        self.attestationFormatsPreference = attestationFormatsPreference
    }

    public func validate() throws(CTAPStatus) { try ClientDataHash.validate(clientDataHash) }

    /// Whether the `icon` members of `rp` and `user`, where present, are text (a URL in CTAP
    /// 2.0 §5.1 and WebAuthn L1). Later versions dropped the member and ignore it, so the typed
    /// entities do not keep it; a 2.0 device type-checks it from the request's value.
    public static func entityIconsAreText(in value: CBORValue) -> Bool {
        let entities = [CodingKeys.rp, .user].compactMap { value.mapValue?[CBORValue($0.rawValue)]?.mapValue }
        return entities.allSatisfy { entity in entity["icon"].map { $0.textValue != nil } ?? true }
    }
}
