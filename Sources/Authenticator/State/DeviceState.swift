import Foundation

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
    /// The serialized large-blob array (CTAP 2.1 §6.10.1), nil for the initial empty one.
    /// Optional so device states written before large blobs existed still decode; reset
    /// replaces the whole state and with it the array.
    public var largeBlobArray: [UInt8]? {
        get { largeBlobs.map { Array($0) } }
        set { largeBlobs = newValue.map { Data($0) } }
    }
    /// Stored as `Data`, which the keystore's JSON writes as base64, not as an array of numbers.
    private var largeBlobs: Data?
    /// The current PIN's length in Unicode code points (CTAP 2.1 §6.11.4: a new minimum longer
    /// than the PIN forces a change). Optional, as are the next two, so older states decode.
    public var pinCodePoints: Int?
    /// alwaysUv (CTAP 2.1 §6.11.2, toggleAlwaysUv): every credential operation needs user verification.
    public var alwaysUv: Bool?
    /// The RP IDs the minPinLength extension reports to (CTAP 2.1 §6.11.4, §12.4).
    public var minPinLengthRPIDs: [String]?
    /// The per-installation U2F attestation identity stores made before issue 33, no longer
    /// used (every passkeyd signs with `U2FAttestationIdentity.batch`); kept so they decode.
    public var u2fAttestation: U2FAttestationIdentity?
    /// The test attestation root and the attestation certificate under it (`--attestation x5c`),
    /// made on first use. Optional so device states written before it existed still decode.
    public var attestationAuthority: AttestationAuthority?
    /// The fingerprints enrolled on the simulated sensor (`--bio`, CTAP 2.1 §6.7), oldest first.
    /// Optional so device states written before bio enrollment existed still decode.
    public var fingerprints: [EnrolledFingerprint]?
    /// The persistent pinUvAuthToken (CTAP 2.2 §6.5.2.1, the pcmr permission): it outlives power
    /// cycles and restarts, and goes with a PIN change or a reset. Optional, as is the next,
    /// so older states decode.
    public var persistentToken: PersistentPinUvAuthToken?
    /// A random identifier of this device, given to the persistent token's holder (getInfo encIdentifier).
    public var deviceIdentifier: [UInt8]?
    /// Whether enableEnterpriseAttestation has run (CTAP 2.1 §7.1, getInfo `ep`); reset turns it off.
    public var enterpriseAttestation: Bool?

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
