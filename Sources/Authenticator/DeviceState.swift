/// The authenticator's persistent state besides credentials. Stores keep it sealed
/// like credential records; it never leaves the device.
public struct DeviceState: Sendable, Codable, Equatable {
    /// AES-256 key that seals non-resident credential IDs. Replaced by authenticatorReset.
    public var wrappingKey: [UInt8]
    /// LEFT(SHA-256(PIN), 16) (CTAP 2.1 §6.5.5.5), nil while no PIN is set.
    public var pinHash: [UInt8]?
    /// pinRetries (CTAP 2.1 §6.5.2.1): 8 after a reset or a correct PIN.
    public var pinRetries: Int
    /// uvRetries for built-in user verification (CTAP 2.1 §6.5.2.2).
    public var uvRetries: Int
    /// The minimum PIN length in code points (CTAP 2.1 §7.4, setMinPINLength).
    public var minPINLength: Int
    /// Set when the PIN must be changed before it can be used again.
    public var forcePINChange: Bool
    /// The signature counter shared by non-resident credentials, which store nothing of their own.
    public var globalSignCount: UInt32
    /// The U2F attestation key and its self-signed certificate, made on the first U2F_REGISTER.
    /// Optional so device states written before U2F existed still decode.
    public var u2fAttestation: U2FAttestationIdentity?
    /// The test attestation root and the attestation certificate under it (`--attestation x5c`),
    /// made on first use. Optional so device states written before it existed still decode.
    public var attestationAuthority: AttestationAuthority?

    public static let maxPINRetries = 8
    public static let maxUVRetries = 8

    public init(wrappingKey: [UInt8]) {
        self.wrappingKey = wrappingKey
        pinHash = nil
        pinRetries = Self.maxPINRetries
        uvRetries = Self.maxUVRetries
        minPINLength = 4
        forcePINChange = false
        globalSignCount = 0
    }
}
