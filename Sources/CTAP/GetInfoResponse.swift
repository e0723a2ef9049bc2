import CBOR

/// authenticatorGetInfo response (CTAP 2.1 §6.4): what the authenticator is and can do.
public struct GetInfoResponse: Sendable, Hashable {
    public var versions: [String]
    public var extensions: [String]
    public var aaguid: [UInt8]
    /// Option identifiers (`rk`, `up`, `uv`, `plat`, `clientPin`, `credMgmt`, ...) to their state.
    public var options: [String: Bool]
    public var maxMsgSize: Int?
    public var pinUvAuthProtocols: [Int]
    public var maxCredentialCountInList: Int?
    public var maxCredentialIdLength: Int?
    public var transports: [String]
    public var algorithms: [PublicKeyCredentialParameters]
    public var forcePINChange: Bool?
    public var minPINLength: Int?
    public var firmwareVersion: Int?
    public var preferredPlatformUvAttempts: Int?
    public var uvModality: Int?
    public var remainingDiscoverableCredentials: Int?

    public init(
        versions: [String], extensions: [String] = [], aaguid: [UInt8], options: [String: Bool] = [:],
        maxMsgSize: Int? = nil, pinUvAuthProtocols: [Int] = [], maxCredentialCountInList: Int? = nil,
        maxCredentialIdLength: Int? = nil, transports: [String] = [], algorithms: [PublicKeyCredentialParameters] = [],
        forcePINChange: Bool? = nil, minPINLength: Int? = nil, firmwareVersion: Int? = nil,
        preferredPlatformUvAttempts: Int? = nil, uvModality: Int? = nil, remainingDiscoverableCredentials: Int? = nil
    ) {
        self.versions = versions
        self.extensions = extensions
        self.aaguid = aaguid
        self.options = options
        self.maxMsgSize = maxMsgSize
        self.pinUvAuthProtocols = pinUvAuthProtocols
        self.maxCredentialCountInList = maxCredentialCountInList
        self.maxCredentialIdLength = maxCredentialIdLength
        self.transports = transports
        self.algorithms = algorithms
        self.forcePINChange = forcePINChange
        self.minPINLength = minPINLength
        self.firmwareVersion = firmwareVersion
        self.preferredPlatformUvAttempts = preferredPlatformUvAttempts
        self.uvModality = uvModality
        self.remainingDiscoverableCredentials = remainingDiscoverableCredentials
    }

    public var cbor: CBORValue {
        func texts(_ list: [String]) -> CBORValue? { list.isEmpty ? nil : .array(list.map { .textString($0) }) }
        return .intKeyed([
            (0x01, .array(versions.map { .textString($0) })),
            (0x02, texts(extensions)),
            (0x03, .byteString(aaguid)),
            (0x04, options.isEmpty ? nil : .map(Dictionary(uniqueKeysWithValues: options.map { (.textString($0.key), .boolean($0.value)) }))),
            (0x05, maxMsgSize.map { CBORValue($0) }),
            (0x06, pinUvAuthProtocols.isEmpty ? nil : .array(pinUvAuthProtocols.map { CBORValue($0) })),
            (0x07, maxCredentialCountInList.map { CBORValue($0) }),
            (0x08, maxCredentialIdLength.map { CBORValue($0) }),
            (0x09, texts(transports)),
            (0x0A, algorithms.isEmpty ? nil : .array(algorithms.map(\.cbor))),
            (0x0C, forcePINChange.map { .boolean($0) }),
            (0x0D, minPINLength.map { CBORValue($0) }),
            (0x0E, firmwareVersion.map { CBORValue($0) }),
            (0x11, preferredPlatformUvAttempts.map { CBORValue($0) }),
            (0x12, uvModality.map { CBORValue($0) }),
            (0x14, remainingDiscoverableCredentials.map { CBORValue($0) }),
        ])
    }

    public init(cbor: CBORValue) throws(CTAPStatus) {
        let map = try CBORMap(cbor)
        let textArray = CBORRead.textArray
        let intArray = CBORRead.intArray
        versions = try map.required(0x01, textArray)
        extensions = try map.optional(0x02, textArray) ?? []
        aaguid = try map.required(0x03, CBORRead.bytes)
        options = try map.optional(0x04, { (v: CBORValue) throws(CTAPStatus) -> [String: Bool]? in
            guard let entries = v.mapValue else { return nil }
            var out: [String: Bool] = [:]
            for (key, value) in entries {
                guard let k = key.textValue, let b = value.boolValue else { throw .cborUnexpectedType }
                out[k] = b
            }
            return out
        }) ?? [:]
        maxMsgSize = try map.optional(0x05, CBORRead.int)
        pinUvAuthProtocols = try map.optional(0x06, intArray) ?? []
        maxCredentialCountInList = try map.optional(0x07, CBORRead.int)
        maxCredentialIdLength = try map.optional(0x08, CBORRead.int)
        transports = try map.optional(0x09, textArray) ?? []
        algorithms = try map.optional(0x0A, CBORRead.array(of: PublicKeyCredentialParameters.init(cbor:))) ?? []
        forcePINChange = try map.optional(0x0C, CBORRead.bool)
        minPINLength = try map.optional(0x0D, CBORRead.int)
        firmwareVersion = try map.optional(0x0E, CBORRead.int)
        preferredPlatformUvAttempts = try map.optional(0x11, CBORRead.int)
        uvModality = try map.optional(0x12, CBORRead.int)
        remainingDiscoverableCredentials = try map.optional(0x14, CBORRead.int)
    }
}
