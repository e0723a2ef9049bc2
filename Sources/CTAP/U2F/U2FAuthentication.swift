import PasskeydMacros

/// What U2F_AUTHENTICATE answers (FIDO U2F Raw Message Formats §5.4), as a host reads it from
/// the response data. Its presence byte and counter are, byte for byte, the flags and signCount
/// of CTAP2 authenticator data (CTAP 2.1 §10.3).
@MemberwiseInit
public struct U2FAuthentication: Sendable, Equatable {
    /// The user presence byte: bit 0 set when the key tested presence.
    public var userPresence: UInt8
    public var counter: UInt32
    /// The signature (DER ECDSA) over `U2FSignedData.authentication`.
    public var signature: [UInt8]

    /// Reads the response data: the presence byte, the counter (4 bytes, big-endian), the
    /// signature. Nil when nothing follows the counter.
    public init?(responseData data: [UInt8]) {
        guard data.count > 5 else { return nil }
        userPresence = data[0]
        counter = data[1..<5].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        signature = Array(data[5...])
    }
}
