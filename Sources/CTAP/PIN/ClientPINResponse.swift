import CBOR

/// The authenticatorClientPIN (0x06) response (CTAP 2.1 §6.5.5). Which fields are
/// present depends on the subcommand; setPIN and changePIN answer with no map at all.
public struct ClientPINResponse: Sendable, Hashable {
    enum Key {
        static let keyAgreement: CBORValue = 0x01
        static let pinUvAuthToken: CBORValue = 0x02
        static let pinRetries: CBORValue = 0x03
        static let powerCycleState: CBORValue = 0x04
        static let uvRetries: CBORValue = 0x05
    }

    /// The authenticator's key agreement key (getKeyAgreement).
    public var keyAgreement: COSEKey?
    /// The pinUvAuthToken, encrypted to the shared secret.
    public var pinUvAuthToken: [UInt8]?
    public var pinRetries: Int?
    /// True when the PIN is soft-blocked until the authenticator is power cycled.
    public var powerCycleState: Bool?
    public var uvRetries: Int?

    public init(
        keyAgreement: COSEKey? = nil,
        pinUvAuthToken: [UInt8]? = nil,
        pinRetries: Int? = nil,
        powerCycleState: Bool? = nil,
        uvRetries: Int? = nil
    ) {
        self.keyAgreement = keyAgreement
        self.pinUvAuthToken = pinUvAuthToken
        self.pinRetries = pinRetries
        self.powerCycleState = powerCycleState
        self.uvRetries = uvRetries
    }

    public var cbor: CBORValue {
        .intKeyed([
            (0x01, keyAgreement?.cbor),
            (0x02, pinUvAuthToken.map { .byteString($0) }),
            (0x03, pinRetries.map { CBORValue($0) }),
            (0x04, powerCycleState.map { .boolean($0) }),
            (0x05, uvRetries.map { CBORValue($0) }),
        ])
    }

    public init(cbor: CBORValue) throws(CTAPStatus) {
        let map = try CBORMap(cbor)
        keyAgreement = try map.optional(Key.keyAgreement, CBORRead.any).map { (v: CBORValue) throws(CTAPStatus) in try COSEKey(cbor: v) }
        pinUvAuthToken = try map.optional(Key.pinUvAuthToken, CBORRead.bytes)
        pinRetries = try map.optional(Key.pinRetries, CBORRead.unsignedInt)
        powerCycleState = try map.optional(Key.powerCycleState, CBORRead.bool)
        uvRetries = try map.optional(Key.uvRetries, CBORRead.unsignedInt)
    }

}
