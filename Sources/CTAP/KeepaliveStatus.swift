/// What the authenticator says while a request is still running (CTAP 2.1 §11.2.9.2.1
/// CTAPHID_KEEPALIVE, §11.4.1.1 BLE keepalive: the same codes on every transport).
public enum KeepaliveStatus: UInt8, Sendable, CaseIterable {
    /// The authenticator is still processing the current request.
    case processing = 1
    /// The authenticator is waiting for the user: a touch, or a built-in verification.
    case userPresenceNeeded = 2
}
