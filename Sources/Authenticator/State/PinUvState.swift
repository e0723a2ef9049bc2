import CTAP

/// The volatile half of the PIN/UV state (CTAP 2.1 §6.5.2): what a power cycle
/// starts afresh. pinRetries, uvRetries and the PIN hash persist in `DeviceState`.
struct PinUvState: Sendable {
    /// The authenticator's key agreement key per protocol (§6.5.6 initialize).
    var keyAgreements: [PinUvAuthProtocolVersion: PinUvAuthenticatorKeyAgreement]
    /// Wrong PINs in a row since power-up; at 3, PIN operations answer
    /// CTAP2_ERR_PIN_AUTH_BLOCKED until the next power cycle (§6.5.5.7.2 step 6).
    var consecutiveMismatches = 0
    /// The pinUvAuthToken in use, if any.
    var token: PinUvAuthTokenState?
    /// Built-in user verifications, successful or not, since the PIN was last entered correctly
    /// (CTAP 2.2 §6.4 uvCountSinceLastPinEntry). Counted since power-up: our reading, for
    /// counting durably would cost a keystore write per fingerprint sign-in.
    var uvCountSinceLastPinEntry = 0

    static let mismatchesBeforePowerCycle = 3

    init() {
        keyAgreements = Dictionary(
            uniqueKeysWithValues: PinUvAuthProtocolVersion.allCases.map {
                ($0, PinUvAuthenticatorKeyAgreement(protocol: $0))
            })
    }

    /// Whether the device needs a power cycle before the PIN can be tried again
    /// (getPINRetries' powerCycleState).
    var needsPowerCycle: Bool { consecutiveMismatches >= Self.mismatchesBeforePowerCycle }

    /// regenerate() for every protocol (§6.5.5.7.2 step 6: after a mismatch).
    mutating func regenerateKeyAgreements() {
        for version in keyAgreements.keys { keyAgreements[version]?.regenerate() }
    }
}
