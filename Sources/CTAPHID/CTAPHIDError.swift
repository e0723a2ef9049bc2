/// The error codes a device sends in a CTAPHID_ERROR response (CTAP 2.1 §11.2.9.1.6).
///
/// These are transport errors, distinct from the CTAP2 status byte carried
/// inside a CTAPHID_CBOR response.
public enum CTAPHIDError: UInt8, Error, Sendable, CaseIterable {
    /// The command in the request is unknown.
    case invalidCommand = 0x01
    /// A parameter in the request is invalid.
    case invalidParameter = 0x02
    /// The length field (BCNT) is invalid for the request.
    case invalidLength = 0x03
    /// The sequence does not match the expected value.
    case invalidSequence = 0x04
    /// The message has timed out.
    case messageTimeout = 0x05
    /// The device is busy for the requesting channel.
    case channelBusy = 0x06
    /// A command requires a channel lock.
    case lockRequired = 0x0A
    /// The CID is not valid.
    case invalidChannel = 0x0B
    /// Unspecified error.
    case other = 0x7F

    /// The spec's name, for logs (e.g. `ERR_INVALID_SEQ`).
    public var specName: String {
        switch self {
        case .invalidCommand: return "ERR_INVALID_CMD"
        case .invalidParameter: return "ERR_INVALID_PAR"
        case .invalidLength: return "ERR_INVALID_LEN"
        case .invalidSequence: return "ERR_INVALID_SEQ"
        case .messageTimeout: return "ERR_MSG_TIMEOUT"
        case .channelBusy: return "ERR_CHANNEL_BUSY"
        case .lockRequired: return "ERR_LOCK_REQUIRED"
        case .invalidChannel: return "ERR_INVALID_CHANNEL"
        case .other: return "ERR_OTHER"
        }
    }
}
