import CBOR
import PasskeydMacros

/// The authenticatorClientPIN (0x06) response (CTAP 2.1 §6.5.5). Which fields are
/// present depends on the subcommand; setPIN and changePIN answer with no map at all.
@MemberwiseInit
public struct ClientPINResponse: CTAPStructure, CTAPCommandResponse, Sendable, Hashable {
    enum CodingKeys: Int, CodingKey {
        case keyAgreement = 0x01
        case pinUvAuthToken, pinRetries, powerCycleState, uvRetries
    }

    /// The authenticator's key agreement key (getKeyAgreement).
    public var keyAgreement: COSEKey?
    /// The pinUvAuthToken, encrypted to the shared secret.
    public var pinUvAuthToken: [UInt8]?
    @Unsigned public var pinRetries: Int?
    /// True when the PIN is soft-blocked until the authenticator is power cycled.
    public var powerCycleState: Bool?
    @Unsigned public var uvRetries: Int?
}
