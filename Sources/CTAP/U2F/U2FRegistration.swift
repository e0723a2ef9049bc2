import PasskeydMacros

/// What U2F_REGISTER answers (FIDO U2F Raw Message Formats §4.3), as a host reads it from the
/// response data: what a client turns into a `fido-u2f` attestation object (CTAP 2.1 §10.2).
@MemberwiseInit
public struct U2FRegistration: Sendable, Equatable {
    /// The credential's public key, an uncompressed P-256 point (0x04 ‖ x ‖ y).
    public var publicKey: [UInt8]
    public var keyHandle: [UInt8]
    /// The attestation certificate (DER).
    public var attestationCertificate: [UInt8]
    /// The attestation signature (DER ECDSA) over `U2FSignedData.registration`.
    public var signature: [UInt8]

    /// Reads the response data: the reserved byte 0x05, a 65-byte uncompressed point, the key
    /// handle by its length byte, then the certificate, whose end only its DER length tells
    /// (X.690 §8.1.3), and the signature after it. Nil when the bytes do not follow that layout.
    public init?(responseData data: [UInt8]) {
        guard data.count > 67, data[0] == U2FResponse.registrationReserved, data[1] == 0x04 else { return nil }
        let keyHandleEnd = 67 + Int(data[66])
        guard data.count > keyHandleEnd, let certificateLength = Self.derLength(data[keyHandleEnd...]),
            data.count > keyHandleEnd + certificateLength
        else { return nil }
        let certificateEnd = keyHandleEnd + certificateLength
        publicKey = Array(data[1..<66])
        keyHandle = Array(data[67..<keyHandleEnd])
        attestationCertificate = Array(data[keyHandleEnd..<certificateEnd])
        signature = Array(data[certificateEnd...])
    }

    /// The whole length (tag, length, contents) of the DER SEQUENCE `bytes` start with: the short
    /// form, or the long form with one to three length bytes.
    static func derLength(_ bytes: ArraySlice<UInt8>) -> Int? {
        guard bytes.count >= 2, bytes.first == 0x30 else { return nil }
        let first = bytes[bytes.startIndex + 1]
        if first < 0x80 { return 2 + Int(first) }
        let count = Int(first & 0x7F)
        guard (1...3).contains(count), bytes.count >= 2 + count else { return nil }
        let start = bytes.startIndex + 2
        return 2 + count + bytes[start..<(start + count)].reduce(0) { $0 << 8 | Int($1) }
    }
}
