import CBOR

/// authenticatorGetAssertion parameters (CTAP 2.1 §6.2).
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

    public func validate() throws(CTAPStatus) { try ClientDataHash.validate(clientDataHash) }
}
