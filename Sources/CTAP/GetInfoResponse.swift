import CBOR
import PasskeydMacros

/// authenticatorGetInfo response (CTAP 2.1 §6.4): what the authenticator is and can do.
@MemberwiseInit
public struct GetInfoResponse: CTAPStructure, CTAPCommandResponse, Sendable, Hashable {
    enum CodingKeys: Int, CodingKey {
        case versions = 0x01
        case extensions, aaguid, options, maxMsgSize, pinUvAuthProtocols
        case maxCredentialCountInList, maxCredentialIdLength, transports, algorithms
        case maxSerializedLargeBlobArray = 0x0B
        case forcePINChange = 0x0C
        case minPINLength, firmwareVersion, maxCredBlobLength, maxRPIDsForSetMinPINLength
        case preferredPlatformUvAttempts = 0x11
        case uvModality
        case remainingDiscoverableCredentials = 0x14
        case attestationFormats = 0x16
        case uvCountSinceLastPinEntry, longTouchForReset
        case encIdentifier = 0x19
        case transportsForReset, pinComplexityPolicy
        case maxPINLength = 0x1D
        case encCredStoreState
        case authenticatorConfigCommands = 0x1F
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
    /// The largest serialized large-blob array the device stores (CTAP 2.1 §6.10), when it offers largeBlobs.
    public var maxSerializedLargeBlobArray: Int?
    public var forcePINChange: Bool?
    public var minPINLength: Int?
    public var firmwareVersion: Int?
    /// The longest credBlob kept (CTAP 2.1 §12.2), when the device offers credBlob.
    public var maxCredBlobLength: Int?
    /// How many RP IDs setMinPINLength accepts for the minPinLength extension (CTAP 2.1 §6.11.4).
    public var maxRPIDsForSetMinPINLength: Int?
    public var preferredPlatformUvAttempts: Int?
    public var uvModality: Int?
    public var remainingDiscoverableCredentials: Int?
    /// The device identifier encrypted to the persistent pinUvAuthToken (CTAP 2.2 §6.4,
    /// `PersistentTokenEncryption`), while one exists.
    public var encIdentifier: [UInt8]?
    /// CTAP 2.2 §6.4: the attestation statement formats makeCredential can return, the default first.
    public var attestationFormats: [String]?
    /// CTAP 2.2 §6.4: built-in user verifications (successful or not) since the PIN was last entered.
    public var uvCountSinceLastPinEntry: Int?
    /// CTAP 2.2 §6.4: whether authenticatorReset needs a long touch.
    public var longTouchForReset: Bool?
    /// CTAP 2.2 §6.4: the transports over which authenticatorReset is accepted.
    public var transportsForReset: [String]?
    /// CTAP 2.2 §6.4: whether a PIN complexity policy beyond minPINLength is in force.
    public var pinComplexityPolicy: Bool?
    /// CTAP 2.2 §6.4: the longest PIN accepted, in Unicode code points.
    public var maxPINLength: Int?
    /// CTAP 2.2 §6.4: a value that changes with the discoverable credentials, encrypted to the
    /// persistent pinUvAuthToken (`PersistentTokenEncryption`), while one exists.
    public var encCredStoreState: [UInt8]?
    /// CTAP 2.2 §6.4: the authenticatorConfig subcommands offered.
    public var authenticatorConfigCommands: [Int]?
}
