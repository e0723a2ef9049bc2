import CBOR

/// authenticatorGetAssertion parameters (CTAP 2.1 §6.2).
///
/// `init(cbor:)` and `cbor` are written out rather than left to `Codable` over `CBORValue`:
/// every sign-in sends this request, and the generic path (a container per member, dynamic
/// casts, metadata lookups) cost more than the rest of its parsing. They keep `CTAPStructure`'s
/// statuses: members are read in declaration order, a missing required key is
/// `CTAP2_ERR_MISSING_PARAMETER`, a present key of the wrong type `CTAP2_ERR_CBOR_UNEXPECTED_TYPE`,
/// and unknown keys are ignored (`HandWrittenCodingTests` holds both paths to the same answers).
/// Both name their keys through `CodingKeys`, the structure's only key table.
public struct GetAssertionRequest: CTAPStructure, Sendable, Hashable {
    enum CodingKeys: Int, CodingKey {
        case rpID = 0x01
        case clientDataHash, allowList, extensions, options, pinUvAuthParam, pinUvAuthProtocol
    }

    public var rpID: String
    public var clientDataHash: [UInt8]
    @Defaulted public var allowList: [PublicKeyCredentialDescriptor]
    /// Extension inputs (CTAP 2.1 §12); the authenticator reads the ones it supports.
    @Defaulted public var extensions: ExtensionMap
    @Defaulted public var options: RequestOptions
    public var pinUvAuthParam: [UInt8]?
    @Unsigned public var pinUvAuthProtocol: Int?

    public init(
        rpID: String, clientDataHash: [UInt8], allowList: [PublicKeyCredentialDescriptor] = [],
        extensions: ExtensionMap = ExtensionMap(), options: RequestOptions = RequestOptions(),
        pinUvAuthParam: [UInt8]? = nil, pinUvAuthProtocol: Int? = nil
    ) {
        self.rpID = rpID
        self.clientDataHash = clientDataHash
        self.allowList = allowList
        self.extensions = extensions
        self.options = options
        self.pinUvAuthParam = pinUvAuthParam
        self.pinUvAuthProtocol = pinUvAuthProtocol
    }

    public init(cbor: CBORValue) throws(CTAPStatus) {
        let map = try CBORMap(cbor)
        // Declaration order: the first member that fails decides the status, as with `Codable`.
        let rpID = try map.required(CodingKeys.rpID, String.init(cbor:))
        let clientDataHash = try map.required(CodingKeys.clientDataHash, [UInt8].init(cbor:))
        let allowList = try map.optional(CodingKeys.allowList, [PublicKeyCredentialDescriptor].init(cborArray:))
        let extensions = try map.optional(CodingKeys.extensions, ExtensionMap.init(cbor:))
        let options = try map.optional(CodingKeys.options, RequestOptions.init(cbor:))
        let pinUvAuthParam = try map.optional(CodingKeys.pinUvAuthParam, [UInt8].init(cbor:))
        let pinUvAuthProtocol = try map.optional(CodingKeys.pinUvAuthProtocol, Unsigned.int(cbor:))
        self.init(
            rpID: rpID, clientDataHash: clientDataHash, allowList: allowList ?? [],
            extensions: extensions ?? ExtensionMap(),
            options: options ?? RequestOptions(), pinUvAuthParam: pinUvAuthParam, pinUvAuthProtocol: pinUvAuthProtocol)
        try validate()
    }

    public var cbor: CBORValue {
        .keyed(
            CodingKeys.self,
            [
                (.rpID, .textString(rpID)),
                (.clientDataHash, .byteString(clientDataHash)),
                (.allowList, allowList.isEmpty ? nil : allowList.cborArray),
                (.extensions, extensions.isEmpty ? nil : extensions.cbor),
                (.options, options.isEmpty ? nil : options.cbor),
                (.pinUvAuthParam, pinUvAuthParam.map(CBORValue.byteString)),
                (.pinUvAuthProtocol, pinUvAuthProtocol.map { CBORValue($0) })
            ])
    }

    public func validate() throws(CTAPStatus) { try ClientDataHash.validate(clientDataHash) }
}
