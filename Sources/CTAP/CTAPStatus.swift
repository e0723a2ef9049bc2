/// A CTAP status code (CTAP 2.1 §8.2, "Status codes"), thrown as the error of
/// every command that fails.
public enum CTAPStatus: UInt8, Error, Sendable, CaseIterable {
    case success = 0x00
    case invalidCommand = 0x01
    case invalidParameter = 0x02
    case invalidLength = 0x03
    case invalidSequence = 0x04
    case timeout = 0x05
    case channelBusy = 0x06
    case lockRequired = 0x0A
    case invalidChannel = 0x0B
    case cborUnexpectedType = 0x11
    case invalidCBOR = 0x12
    case missingParameter = 0x14
    case limitExceeded = 0x15
    case fingerprintDatabaseFull = 0x17
    case largeBlobStorageFull = 0x18
    case credentialExcluded = 0x19
    case processing = 0x21
    case invalidCredential = 0x22
    case userActionPending = 0x23
    case operationPending = 0x24
    case noOperations = 0x25
    case unsupportedAlgorithm = 0x26
    case operationDenied = 0x27
    case keyStoreFull = 0x28
    case unsupportedOption = 0x2B
    case invalidOption = 0x2C
    case keepaliveCancel = 0x2D
    case noCredentials = 0x2E
    case userActionTimeout = 0x2F
    case notAllowed = 0x30
    case pinInvalid = 0x31
    case pinBlocked = 0x32
    case pinAuthInvalid = 0x33
    case pinAuthBlocked = 0x34
    case pinNotSet = 0x35
    case puatRequired = 0x36
    case pinPolicyViolation = 0x37
    case requestTooLarge = 0x39
    case actionTimeout = 0x3A
    case upRequired = 0x3B
    case uvBlocked = 0x3C
    case integrityFailure = 0x3D
    case invalidSubcommand = 0x3E
    case uvInvalid = 0x3F
    case unauthorizedPermission = 0x40
    case other = 0x7F
}

extension CTAPStatus {
    /// The spec's name, for logs and error messages (e.g. `CTAP2_ERR_PIN_INVALID`).
    public var specName: String {
        switch self {
        case .success: return "CTAP2_OK"
        case .invalidCommand: return "CTAP1_ERR_INVALID_COMMAND"
        case .invalidParameter: return "CTAP1_ERR_INVALID_PARAMETER"
        case .invalidLength: return "CTAP1_ERR_INVALID_LENGTH"
        case .invalidSequence: return "CTAP1_ERR_INVALID_SEQ"
        case .timeout: return "CTAP1_ERR_TIMEOUT"
        case .channelBusy: return "CTAP1_ERR_CHANNEL_BUSY"
        case .lockRequired: return "CTAP1_ERR_LOCK_REQUIRED"
        case .invalidChannel: return "CTAP1_ERR_INVALID_CHANNEL"
        case .cborUnexpectedType: return "CTAP2_ERR_CBOR_UNEXPECTED_TYPE"
        case .invalidCBOR: return "CTAP2_ERR_INVALID_CBOR"
        case .missingParameter: return "CTAP2_ERR_MISSING_PARAMETER"
        case .limitExceeded: return "CTAP2_ERR_LIMIT_EXCEEDED"
        case .fingerprintDatabaseFull: return "CTAP2_ERR_FP_DATABASE_FULL"
        case .largeBlobStorageFull: return "CTAP2_ERR_LARGE_BLOB_STORAGE_FULL"
        case .credentialExcluded: return "CTAP2_ERR_CREDENTIAL_EXCLUDED"
        case .processing: return "CTAP2_ERR_PROCESSING"
        case .invalidCredential: return "CTAP2_ERR_INVALID_CREDENTIAL"
        case .userActionPending: return "CTAP2_ERR_USER_ACTION_PENDING"
        case .operationPending: return "CTAP2_ERR_OPERATION_PENDING"
        case .noOperations: return "CTAP2_ERR_NO_OPERATIONS"
        case .unsupportedAlgorithm: return "CTAP2_ERR_UNSUPPORTED_ALGORITHM"
        case .operationDenied: return "CTAP2_ERR_OPERATION_DENIED"
        case .keyStoreFull: return "CTAP2_ERR_KEY_STORE_FULL"
        case .unsupportedOption: return "CTAP2_ERR_UNSUPPORTED_OPTION"
        case .invalidOption: return "CTAP2_ERR_INVALID_OPTION"
        case .keepaliveCancel: return "CTAP2_ERR_KEEPALIVE_CANCEL"
        case .noCredentials: return "CTAP2_ERR_NO_CREDENTIALS"
        case .userActionTimeout: return "CTAP2_ERR_USER_ACTION_TIMEOUT"
        case .notAllowed: return "CTAP2_ERR_NOT_ALLOWED"
        case .pinInvalid: return "CTAP2_ERR_PIN_INVALID"
        case .pinBlocked: return "CTAP2_ERR_PIN_BLOCKED"
        case .pinAuthInvalid: return "CTAP2_ERR_PIN_AUTH_INVALID"
        case .pinAuthBlocked: return "CTAP2_ERR_PIN_AUTH_BLOCKED"
        case .pinNotSet: return "CTAP2_ERR_PIN_NOT_SET"
        case .puatRequired: return "CTAP2_ERR_PUAT_REQUIRED"
        case .pinPolicyViolation: return "CTAP2_ERR_PIN_POLICY_VIOLATION"
        case .requestTooLarge: return "CTAP2_ERR_REQUEST_TOO_LARGE"
        case .actionTimeout: return "CTAP2_ERR_ACTION_TIMEOUT"
        case .upRequired: return "CTAP2_ERR_UP_REQUIRED"
        case .uvBlocked: return "CTAP2_ERR_UV_BLOCKED"
        case .integrityFailure: return "CTAP2_ERR_INTEGRITY_FAILURE"
        case .invalidSubcommand: return "CTAP2_ERR_INVALID_SUBCOMMAND"
        case .uvInvalid: return "CTAP2_ERR_UV_INVALID"
        case .unauthorizedPermission: return "CTAP2_ERR_UNAUTHORIZED_PERMISSION"
        case .other: return "CTAP1_ERR_OTHER"
        }
    }
}

extension CTAPStatus: CustomStringConvertible {
    public var description: String {
        "\(specName) (0x\(String(rawValue, radix: 16, uppercase: true)))"
    }
}
