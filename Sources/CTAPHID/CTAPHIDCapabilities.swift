import PasskeydMacros

/// The capability flags of the CTAPHID_INIT response (CTAP 2.1 §11.2.9.1.3).
@MemberwiseInit
public struct CTAPHIDCapabilities: OptionSet, Sendable, Hashable {
    public let rawValue: UInt8

    /// The device implements CTAPHID_WINK.
    public static let wink = CTAPHIDCapabilities(rawValue: 0x01)
    /// The device implements CTAPHID_CBOR.
    public static let cbor = CTAPHIDCapabilities(rawValue: 0x04)
    /// The device does *not* implement CTAPHID_MSG (no CTAP1/U2F).
    public static let nmsg = CTAPHIDCapabilities(rawValue: 0x08)
}
