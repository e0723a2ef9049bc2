import CBOR

/// authenticatorMakeCredential parameters (CTAP 2.1 §6.1).
///
/// `init(cbor:)` and `cbor` are written out, as `GetAssertionRequest`'s are, rather than left to
/// `Codable` over `CBORValue`: every registration sends this request, and the generic path costs a
/// container, dynamic casts and metadata lookups per member. They keep `CTAPStructure`'s statuses:
/// members are read in declaration order, a missing required key is `CTAP2_ERR_MISSING_PARAMETER`,
/// a present key of the wrong type `CTAP2_ERR_CBOR_UNEXPECTED_TYPE`, unknown keys are ignored, then
/// `validate()` (`HandWrittenCodingTests` holds both paths to the same answers). Both name their
/// keys through `CodingKeys`, the structure's only key table.
public struct MakeCredentialRequest: CTAPStructure, Sendable, Hashable {
    enum CodingKeys: Int, CodingKey {
        case clientDataHash = 0x01
        case rp, user, pubKeyCredParams, excludeList, extensions, options
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

    public init(cbor: CBORValue) throws(CTAPStatus) {
        let map = try CBORMap(cbor)
        // Declaration order: the first member that fails decides the status, as with `Codable`.
        let clientDataHash = try map.required(CodingKeys.clientDataHash, [UInt8].init(cbor:))
        let rp = try map.required(CodingKeys.rp, PublicKeyCredentialRpEntity.init(cbor:))
        let user = try map.required(CodingKeys.user, PublicKeyCredentialUserEntity.init(cbor:))
        let pubKeyCredParams = try map.required(
            CodingKeys.pubKeyCredParams, [PublicKeyCredentialParameters].init(cborArray:))
        let excludeList = try map.optional(CodingKeys.excludeList, [PublicKeyCredentialDescriptor].init(cborArray:))
        let extensions = try map.optional(CodingKeys.extensions, ExtensionMap.init(cbor:))
        let options = try map.optional(CodingKeys.options, RequestOptions.init(cbor:))
        let pinUvAuthParam = try map.optional(CodingKeys.pinUvAuthParam, [UInt8].init(cbor:))
        let pinUvAuthProtocol = try map.optional(CodingKeys.pinUvAuthProtocol, Unsigned.int(cbor:))
        let enterpriseAttestation = try map.optional(CodingKeys.enterpriseAttestation, Int.init(cbor:))
        let attestationFormatsPreference = try map.optional(
            CodingKeys.attestationFormatsPreference, [String].init(cborArray:))
        self.init(
            clientDataHash: clientDataHash, rp: rp, user: user, pubKeyCredParams: pubKeyCredParams,
            excludeList: excludeList ?? [], extensions: extensions ?? ExtensionMap(),
            options: options ?? RequestOptions(),
            pinUvAuthParam: pinUvAuthParam, pinUvAuthProtocol: pinUvAuthProtocol,
            enterpriseAttestation: enterpriseAttestation,
            attestationFormatsPreference: attestationFormatsPreference)
        try validate()
    }

    public var cbor: CBORValue {
        .keyed(
            CodingKeys.self,
            [
                (.clientDataHash, .byteString(clientDataHash)),
                (.rp, rp.cbor),
                (.user, user.cbor),
                (.pubKeyCredParams, pubKeyCredParams.cborArray),
                (.excludeList, excludeList.isEmpty ? nil : excludeList.cborArray),
                (.extensions, extensions.isEmpty ? nil : extensions.cbor),
                (.options, options.isEmpty ? nil : options.cbor),
                (.pinUvAuthParam, pinUvAuthParam.map(CBORValue.byteString)),
                (.pinUvAuthProtocol, pinUvAuthProtocol.map { CBORValue($0) }),
                (.enterpriseAttestation, enterpriseAttestation.map { CBORValue($0) }),
                (.attestationFormatsPreference, attestationFormatsPreference?.cborArray)
            ])
    }

    public func validate() throws(CTAPStatus) { try ClientDataHash.validate(clientDataHash) }

    /// Whether the `icon` members of `rp` and `user`, where present, are text (a URL in CTAP
    /// 2.0 §5.1 and WebAuthn L1). Later versions dropped the member and ignore it, so the typed
    /// entities do not keep it; a 2.0 device type-checks it from the request's value.
    public static func entityIconsAreText(in value: CBORValue) -> Bool {
        let entities = [CodingKeys.rp, .user].compactMap { value.mapValue?[$0.cborKey]?.mapValue }
        return entities.allSatisfy { entity in entity["icon"].map { $0.textValue != nil } ?? true }
    }
}
