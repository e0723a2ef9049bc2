/// The status byte of a CTAPHID_KEEPALIVE message (CTAP 2.1 §11.2.9.2.1).
public enum CTAPHIDKeepaliveStatus: UInt8, Sendable, CaseIterable {
    /// The authenticator is still processing the current request.
    case processing = 1
    /// The authenticator is waiting for user presence.
    case upNeeded = 2
}
