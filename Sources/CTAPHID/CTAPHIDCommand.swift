/// A CTAPHID command byte, without the initialization-packet bit (CTAP 2.1 §11.2.9).
///
/// A struct rather than an enum: commands 0x40–0x7F are vendor-defined, and an
/// unknown byte must still be representable so the device can answer
/// `ERR_INVALID_CMD` to it (§11.2.9.1.9).
public struct CTAPHIDCommand: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The seven command bits; always below 0x80.
    public let rawValue: UInt8

    public init(rawValue: UInt8) {
        self.rawValue = rawValue & 0x7F
    }

    public static let ping = CTAPHIDCommand(rawValue: 0x01)
    public static let msg = CTAPHIDCommand(rawValue: 0x03)
    public static let lock = CTAPHIDCommand(rawValue: 0x04)
    public static let `init` = CTAPHIDCommand(rawValue: 0x06)
    public static let wink = CTAPHIDCommand(rawValue: 0x08)
    public static let cbor = CTAPHIDCommand(rawValue: 0x10)
    public static let cancel = CTAPHIDCommand(rawValue: 0x11)
    public static let keepalive = CTAPHIDCommand(rawValue: 0x3B)
    public static let error = CTAPHIDCommand(rawValue: 0x3F)

    /// The range reserved for vendor commands (§11.2.9.3).
    public static let vendorRange: ClosedRange<UInt8> = 0x40...0x7F

    public var isVendor: Bool { Self.vendorRange.contains(rawValue) }

    public var description: String {
        switch self {
        case .ping: return "PING"
        case .msg: return "MSG"
        case .lock: return "LOCK"
        case .`init`: return "INIT"
        case .wink: return "WINK"
        case .cbor: return "CBOR"
        case .cancel: return "CANCEL"
        case .keepalive: return "KEEPALIVE"
        case .error: return "ERROR"
        default:
            let hex = String(rawValue, radix: 16, uppercase: true)
            return isVendor ? "VENDOR(0x\(hex))" : "UNKNOWN(0x\(hex))"
        }
    }
}
