import CTAP

extension Authenticator {
    /// What kind of device this authenticator presents itself as.
    public struct Configuration: Sendable {
        /// passkeyd's AAGUID, `cebed41c-3efc-4080-98c5-e3ce60214c97`: one value for every
        /// passkeyd, so relying parties can recognise the model (WebAuthn L3 §6.5.1).
        public static let passkeydAAGUID: [UInt8] = [
            0xCE, 0xBE, 0xD4, 0x1C, 0x3E, 0xFC, 0x40, 0x80, 0x98, 0xC5, 0xE3, 0xCE, 0x60, 0x21, 0x4C, 0x97
        ]

        public var aaguid: [UInt8] = passkeydAAGUID
        /// Reported in getInfo as `firmwareVersion`: 0xMMmmpp.
        public var firmwareVersion: Int = 0x00_01_00
        /// The largest CTAP2 message accepted: the CTAPHID limit (CTAP 2.1 §11.2.4).
        public var maxMsgSize: Int = 7609
        public var maxCredentialCountInList: Int = 64
        /// The longest credential ID minted: an RS256/PS256 one, whose key travels inside it.
        public var maxCredentialIDLength: Int = CredentialWrapping.maxIDLength
        /// Algorithms in order of preference; getInfo lists them in this order (docs/algorithms.md):
        /// ES256 first, then EdDSA, the larger curves, ML-DSA, RSA (its keys are slow to make), and
        /// ES256K last (the fewest relying parties verify it).
        public var algorithms: [COSEAlgorithm] = [
            .es256, .edDSA, .es384, .es512, .mldsa44, .mldsa65, .mldsa87, .ps256, .rs256, .es256K
        ]
        /// How long getNextAssertion state lives after the last assertion (CTAP 2.1 §6.3).
        public var assertionStateLifetime: Duration = .seconds(30)
        /// How long after power-up authenticatorReset is allowed (CTAP 2.1 §6.6).
        public var resetWindow: Duration = .seconds(10)
        /// pinUvAuthToken lifetimes (CTAP 2.1 §6.5.2.2): unused 30 s, user present 30 s, at most 10 min.
        var pinUvAuthTokenLimits = PinUvAuthTokenState.Limits()
        /// How long credential management enumeration state lives after its last answer.
        public var enumerationStateLifetime: Duration = .seconds(30)
        /// maxSerializedLargeBlobArray (CTAP 2.1 §6.4, §6.10): the largest serialized large-blob
        /// array stored, hash included; at least 1024.
        public var maxSerializedLargeBlobArray: Int = 4096
        /// How long a large-blob write in fragments waits for its next fragment (CTAP 2.1 §6.10.2).
        public var largeBlobWriteLifetime: Duration = .seconds(30)
        /// The simulated fingerprint reader (`--bio`), if the device has one: it offers
        /// authenticatorBioEnrollment, and built-in UV is configured once a finger is enrolled.
        public var fingerprintSensor: FingerprintSensor?
        /// How long a fingerprint enrollment waits for its next capture (CTAP 2.1 §6.7.4).
        public var fingerprintEnrollmentLifetime: Duration = .seconds(30)
        /// The RP IDs vendor-facilitated enterprise attestation attests (CTAP 2.1 §7.1.1): what a
        /// vendor would build into the device for its enterprise customers; test names here.
        public var enterpriseAttestationRPIDs: Set<String> = ["enterprise.passkeyd.test"]
        /// The monotonic clock behind every timeout; tests substitute their own.
        public var now: @Sendable () -> ContinuousClock.Instant = { ContinuousClock.now }

        /// BE and BS for new credentials (WebAuthn L3 §6.1); a stored credential keeps what it was made with.
        public var backup: BackupFlags = .singleDevice
        /// What makeCredential's attestation statement proves.
        public var attestation: AttestationMode = .selfAttestation
        /// How signature counters advance.
        public var signatureCounter: SignatureCounterMode = .perCredential
        /// Whether the export vendor command may hand out private keys (`--allow-private-key-export`).
        /// Off by default: any process of the user can get a `cm` token by built-in UV under
        /// `--uv auto`, so keys leave only when the daemon's owner opted in (docs/keystore.md).
        public var allowsPrivateKeyExport = false

        /// The extensions offered (CTAP 2.1 §12): getInfo lists them, the commands process them.
        public var extensions: ExtensionRegistry = .standard
        /// The kind of key it stands in for (docs/profiles.md): what it advertises and which
        /// CTAP rule set its commands follow.
        public var profile: DeviceProfile = .fido21

        public init() {}

        /// A device of `profile`, offering the extensions that profile has.
        public init(profile: DeviceProfile) {
            self.profile = profile
            extensions = ExtensionRegistry.standard.selecting(profile.extensions)
        }

        /// The CTAP rule set in force.
        var rules: CTAPRules { profile.rules }
    }
}
