import CBOR

/// authenticatorGetAssertion parameters (CTAP 2.1 §6.2).
public struct GetAssertionRequest: Sendable, Hashable {
    enum Key {
        static let rpID: CBORValue = 0x01
        static let clientDataHash: CBORValue = 0x02
        static let allowList: CBORValue = 0x03
        static let extensions: CBORValue = 0x04
        static let options: CBORValue = 0x05
        static let pinUvAuthParam: CBORValue = 0x06
        static let pinUvAuthProtocol: CBORValue = 0x07
    }

    public var rpID: String
    public var clientDataHash: [UInt8]
    public var allowList: [PublicKeyCredentialDescriptor]
    public var extensions: [String: CBORValue]
    public var options: RequestOptions
    public var pinUvAuthParam: [UInt8]?
    public var pinUvAuthProtocol: Int?

    public init(
        rpID: String, clientDataHash: [UInt8], allowList: [PublicKeyCredentialDescriptor] = [],
        extensions: [String: CBORValue] = [:], options: RequestOptions = RequestOptions(),
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

    public var cbor: CBORValue {
        .intKeyed([
            (0x01, .textString(rpID)),
            (0x02, .byteString(clientDataHash)),
            (0x03, allowList.isEmpty ? nil : .array(allowList.map(\.cbor))),
            (0x04, extensions.isEmpty ? nil : .map(Dictionary(uniqueKeysWithValues: extensions.map { (CBORValue.textString($0.key), $0.value) }))),
            (0x05, options.isEmpty ? nil : options.cbor),
            (0x06, pinUvAuthParam.map { .byteString($0) }),
            (0x07, pinUvAuthProtocol.map { CBORValue($0) }),
        ])
    }

    public init(cbor: CBORValue) throws(CTAPStatus) {
        let map = try CBORMap(cbor)
        rpID = try map.required(Key.rpID, CBORRead.text)
        clientDataHash = try map.required(Key.clientDataHash, CBORRead.bytes)
        allowList = try map.optional(Key.allowList, CBORRead.array(of: PublicKeyCredentialDescriptor.init(cbor:))) ?? []
        extensions = try map.optional(Key.extensions, ExtensionInputs.read) ?? [:]
        options = try map.optional(Key.options, RequestOptions.init(cbor:)) ?? RequestOptions()
        pinUvAuthParam = try map.optional(Key.pinUvAuthParam, CBORRead.bytes)
        pinUvAuthProtocol = try map.optional(Key.pinUvAuthProtocol, CBORRead.unsignedInt)
    }
}
