import CBOR

/// authenticatorGetInfo response (CTAP 2.1 §6.4): what the authenticator is and can do.
public struct GetInfoResponse: CTAPStructure, Sendable, Hashable {
    enum CodingKeys: Int, CodingKey {
        case versions = 0x01, extensions, aaguid, options, maxMsgSize, pinUvAuthProtocols
        case maxCredentialCountInList, maxCredentialIdLength, transports, algorithms
        case forcePINChange = 0x0C, minPINLength, firmwareVersion
        case preferredPlatformUvAttempts = 0x11, uvModality
        case remainingDiscoverableCredentials = 0x14
    }

    public var versions: [String]
    @Defaulted public var extensions: [String]
    public var aaguid: [UInt8]
    /// Option identifiers (`rk`, `up`, `uv`, `plat`, `clientPin`, `credMgmt`, ...) to their state.
    @Defaulted public var options: [String: Bool]
    public var maxMsgSize: Int?
    @Defaulted public var pinUvAuthProtocols: [Int]
    public var maxCredentialCountInList: Int?
    public var maxCredentialIdLength: Int?
    @Defaulted public var transports: [String]
    @Defaulted public var algorithms: [PublicKeyCredentialParameters]
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
}
