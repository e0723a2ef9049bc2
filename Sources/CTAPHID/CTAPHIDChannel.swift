/// Channel identifiers (CTAP 2.1 §11.2.3): 32-bit values the device allocates
/// through CTAPHID_INIT.
public enum CTAPHIDChannel {
    /// The broadcast CID, used only to send CTAPHID_INIT before a channel exists.
    public static let broadcast: UInt32 = 0xFFFF_FFFF
    /// CID 0 is reserved and never valid (§11.2.3).
    public static let reserved: UInt32 = 0

    /// Whether `channel` may be allocated to a client.
    public static func isAllocatable(_ channel: UInt32) -> Bool {
        channel != broadcast && channel != reserved
    }
}
