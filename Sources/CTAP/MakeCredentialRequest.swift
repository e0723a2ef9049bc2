import CBOR

/// authenticatorMakeCredential parameters (CTAP 2.1 §6.1).
public struct MakeCredentialRequest: Sendable, Hashable {
    enum Key {
        static let clientDataHash: CBORValue = 0x01
        static let rp: CBORValue = 0x02
        static let user: CBORValue = 0x03
        static let pubKeyCredParams: CBORValue = 0x04
        static let excludeList: CBORValue = 0x05
        static let extensions: CBORValue = 0x06
        static let options: CBORValue = 0x07
        static let pinUvAuthParam: CBORValue = 0x08
        static let pinUvAuthProtocol: CBORValue = 0x09
        static let enterpriseAttestation: CBORValue = 0x0A
        static let attestationFormatsPreference: CBORValue = 0x0B
    }

    public var clientDataHash: [UInt8]
    public var rp: PublicKeyCredentialRpEntity
    public var user: PublicKeyCredentialUserEntity
    public var pubKeyCredParams: [PublicKeyCredentialParameters]
    public var excludeList: [PublicKeyCredentialDescriptor]
    /// Extension inputs by identifier; the authenticator reads the ones it supports.
    public var extensions: [String: CBORValue]
    public var options: RequestOptions
    public var pinUvAuthParam: [UInt8]?
    public var pinUvAuthProtocol: Int?
    public var enterpriseAttestation: Int?
    /// CTAP 2.2 §6.1: attestation formats the platform prefers, most preferred first.
    public var attestationFormatsPreference: [String]?

    public init(
        clientDataHash: [UInt8], rp: PublicKeyCredentialRpEntity, user: PublicKeyCredentialUserEntity,
        pubKeyCredParams: [PublicKeyCredentialParameters], excludeList: [PublicKeyCredentialDescriptor] = [],
        extensions: [String: CBORValue] = [:], options: RequestOptions = RequestOptions(),
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

    public var cbor: CBORValue {
        .intKeyed([
            (0x01, .byteString(clientDataHash)),
            (0x02, rp.cbor),
            (0x03, user.cbor),
            (0x04, .array(pubKeyCredParams.map(\.cbor))),
            (0x05, excludeList.isEmpty ? nil : .array(excludeList.map(\.cbor))),
            (0x06, extensions.isEmpty ? nil : .map(Dictionary(uniqueKeysWithValues: extensions.map { (CBORValue.textString($0.key), $0.value) }))),
            (0x07, options.isEmpty ? nil : options.cbor),
            (0x08, pinUvAuthParam.map { .byteString($0) }),
            (0x09, pinUvAuthProtocol.map { CBORValue($0) }),
            (0x0A, enterpriseAttestation.map { CBORValue($0) }),
            (0x0B, attestationFormatsPreference.map { .array($0.map { .textString($0) }) }),
        ])
    }

    public init(cbor: CBORValue) throws(CTAPStatus) {
        let map = try CBORMap(cbor)
        clientDataHash = try map.required(Key.clientDataHash, CBORRead.bytes)
        rp = try map.required(Key.rp, PublicKeyCredentialRpEntity.init(cbor:))
        user = try map.required(Key.user, PublicKeyCredentialUserEntity.init(cbor:))
        pubKeyCredParams = try map.required(Key.pubKeyCredParams, CBORRead.array(of: PublicKeyCredentialParameters.init(cbor:)))
        excludeList = try map.optional(Key.excludeList, CBORRead.array(of: PublicKeyCredentialDescriptor.init(cbor:))) ?? []
        extensions = try map.optional(Key.extensions, ExtensionInputs.read) ?? [:]
        options = try map.optional(Key.options, RequestOptions.init(cbor:)) ?? RequestOptions()
        pinUvAuthParam = try map.optional(Key.pinUvAuthParam, CBORRead.bytes)
        pinUvAuthProtocol = try map.optional(Key.pinUvAuthProtocol, CBORRead.unsignedInt)
        enterpriseAttestation = try map.optional(Key.enterpriseAttestation, CBORRead.int)
        attestationFormatsPreference = try map.optional(Key.attestationFormatsPreference, CBORRead.textArray)
    }
}

/// The `extensions` parameter: a map from extension identifier to input.
enum ExtensionInputs {
    static func read(_ value: CBORValue) throws(CTAPStatus) -> [String: CBORValue]? {
        guard let entries = value.mapValue else { return nil }
        var out: [String: CBORValue] = [:]
        for (key, input) in entries {
            guard let id = key.textValue else { throw .cborUnexpectedType }
            out[id] = input
        }
        return out
    }
}
