import CTAP
import Crypto
import PasskeydMacros

/// The persistent pinUvAuthToken (CTAP 2.2 §6.5.2.1): handed out with the pcmr permission alone,
/// it lets a platform read credential management (getCredsMetadata, the enumerations) without
/// asking for the PIN again, across power cycles. It can change nothing. Kept sealed in the device state.
@MemberwiseInit
public struct PersistentPinUvAuthToken: Sendable, Codable, Equatable {
    public var key: [UInt8]
    /// The PIN/UV auth protocol it was handed out under; a pinUvAuthParam under another cannot verify.
    public var pinUvAuthProtocol: Int

    /// verify(token, message, param) under the token's own protocol; any failure is
    /// `CTAP2_ERR_PIN_AUTH_INVALID`.
    func verify(_ param: [UInt8], protocol version: PinUvAuthProtocolVersion, message: [UInt8]) throws(CTAPStatus) {
        guard version.rawValue == pinUvAuthProtocol else { throw .pinAuthInvalid }
        try version.implementation.verify(key: SymmetricKey(data: key), message: message, signature: param)
    }

    /// The token encrypted to the platform's shared secret, as the subcommands return it.
    func encrypted(with sharedSecret: SymmetricKey, protocol version: PinUvAuthProtocolVersion) throws(CTAPStatus)
        -> [UInt8]
    {
        try version.implementation.encrypt(key: sharedSecret, plaintext: key)
    }
}
