/// clientDataHash, the SHA-256 of the client data (CTAP 2.1 §6.1, §6.2; WebAuthn L3 §5.8.1).
public enum ClientDataHash {
    public static let length = 32

    /// The device signs authData ‖ clientDataHash, so any other length is refused with
    /// `CTAP1_ERR_INVALID_LENGTH`, "invalid message or item length" (CTAP 2.1 §8.2).
    public static func validate(_ hash: [UInt8]) throws(CTAPStatus) {
        guard hash.count == length else { throw .invalidLength }
    }
}
