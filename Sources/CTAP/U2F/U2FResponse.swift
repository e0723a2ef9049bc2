/// What the authenticator answers a U2F command with, before the status word
/// (FIDO U2F Raw Message Formats §4.3, §5.4, §6.1).
public enum U2FResponse: Sendable, Equatable {
    /// §4.3: 0x05 ‖ user public key (65, uncompressed P-256) ‖ L ‖ key handle ‖
    /// attestation certificate (DER) ‖ signature (DER ECDSA).
    case registration(publicKey: [UInt8], keyHandle: [UInt8], attestationCertificate: [UInt8], signature: [UInt8])
    /// §5.4: user presence byte ‖ counter (4, big-endian) ‖ signature.
    case authentication(userPresence: UInt8, counter: UInt32, signature: [UInt8])
    /// §6.1: the version string, `U2F_V2`.
    case version(String)

    /// The reserved byte that opens a registration response (§4.3).
    public static let registrationReserved: UInt8 = 0x05

    /// The response data.
    public var bytes: [UInt8] {
        switch self {
        case .registration(let publicKey, let keyHandle, let certificate, let signature):
            return [Self.registrationReserved] + publicKey + [UInt8(keyHandle.count)] + keyHandle + certificate
                + signature
        case .authentication(let userPresence, let counter, let signature):
            return [userPresence] + U2FSignedData.bigEndian(counter) + signature
        case .version(let version):
            return Array(version.utf8)
        }
    }

    /// The response APDU: the data, then SW_NO_ERROR.
    public var apdu: [UInt8] { bytes + StatusWord.noError.bytes }
}
