import CBOR

/// authenticatorGetAssertion parameters (CTAP 2.1 §6.2).
///
/// `init(cbor:)` and `cbor` are written out rather than left to `Codable` over `CBORValue`:
/// every sign-in sends this request, and the generic path (a container per member, dynamic
/// casts, metadata lookups) cost more than the rest of its parsing. They keep `CTAPStructure`'s
/// statuses: members are read in declaration order, a missing required key is
/// `CTAP2_ERR_MISSING_PARAMETER`, a present key of the wrong type `CTAP2_ERR_CBOR_UNEXPECTED_TYPE`,
/// and unknown keys are ignored (`HandWrittenCodingTests` holds both paths to the same answers).
public struct GetAssertionRequest: CTAPStructure, Sendable, Hashable {
    enum CodingKeys: Int, CodingKey {
        case rpID = 0x01, clientDataHash, allowList, extensions, options, pinUvAuthParam, pinUvAuthProtocol
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
        let rpID = try map.required(1, String.init(cbor:))
        let clientDataHash = try map.required(2, [UInt8].init(cbor:))
        let allowList = try map.optional(3, [PublicKeyCredentialDescriptor].init(cborArray:))
        let extensions = try map.optional(4, ExtensionMap.init(cbor:))
        let options = try map.optional(5, RequestOptions.init(cbor:))
        let pinUvAuthParam = try map.optional(6, [UInt8].init(cbor:))
        let pinUvAuthProtocol = try map.optional(7, Unsigned.int(cbor:))
        self.init(rpID: rpID, clientDataHash: clientDataHash, allowList: allowList ?? [], extensions: extensions ?? ExtensionMap(),
                  options: options ?? RequestOptions(), pinUvAuthParam: pinUvAuthParam, pinUvAuthProtocol: pinUvAuthProtocol)
        try validate()
    }

    public var cbor: CBORValue {
        .intKeyed([
            (1, .textString(rpID)),
            (2, .byteString(clientDataHash)),
            (3, allowList.isEmpty ? nil : allowList.cborArray),
            (4, extensions.isEmpty ? nil : extensions.cbor),
            (5, options.isEmpty ? nil : options.cbor),
            (6, pinUvAuthParam.map(CBORValue.byteString)),
            (7, pinUvAuthProtocol.map { CBORValue($0) }),
        ])
    }

    public func validate() throws(CTAPStatus) { try ClientDataHash.validate(clientDataHash) }
}
