/// The bytes a U2F signature covers (FIDO U2F Raw Message Formats §4.3, §5.4).
public enum U2FSignedData {
    /// Registration: 0x00 ‖ application ‖ challenge ‖ key handle ‖ user public key.
    public static func registration(application: [UInt8], challenge: [UInt8], keyHandle: [UInt8], publicKey: [UInt8])
        -> [UInt8]
    {
        [0x00] + application + challenge + keyHandle + publicKey
    }

    /// Authentication: application ‖ user presence ‖ counter ‖ challenge. Its first 37 bytes
    /// are exactly CTAP2 authenticator data without extensions (CTAP 2.1 §10.3).
    public static func authentication(application: [UInt8], userPresence: UInt8, counter: UInt32, challenge: [UInt8])
        -> [UInt8]
    {
        application + [userPresence] + bigEndian(counter) + challenge
    }

    static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }
}
