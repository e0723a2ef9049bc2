import PasskeydMacros

/// U2F_REGISTER's request (FIDO U2F Raw Message Formats §4.1): the challenge parameter
/// (SHA-256 of the client data) and the application parameter (SHA-256 of the application
/// identity, which CTAP 2.1 §10 equates with the rpIdHash).
@MemberwiseInit
public struct U2FRegisterRequest: Sendable, Equatable {
    public var challenge: [UInt8]
    public var application: [UInt8]

    /// Exactly 64 bytes; anything else is `SW_WRONG_LENGTH`.
    init(data: [UInt8]) throws(StatusWord) {
        guard data.count == 64 else { throw .wrongLength }
        challenge = Array(data[0..<32])
        application = Array(data[32..<64])
    }
}
