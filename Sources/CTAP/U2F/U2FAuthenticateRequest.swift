import PasskeydMacros

/// U2F_AUTHENTICATE's request (FIDO U2F Raw Message Formats §5.1).
@MemberwiseInit
public struct U2FAuthenticateRequest: Sendable, Equatable {
    /// The control byte (P1, §5.1).
    public enum Control: UInt8, Sendable {
        /// Whether the key handle is ours for this application; nothing is signed.
        case checkOnly = 0x07
        /// Sign only with user presence.
        case enforceUserPresence = 0x03
        /// Sign without asking for presence (the user-presence flag says so).
        case dontEnforceUserPresence = 0x08
    }

    public var control: Control
    public var challenge: [UInt8]
    public var application: [UInt8]
    /// At most 255 bytes: its length travels in one byte.
    public var keyHandle: [UInt8]

    /// challenge (32) ‖ application (32) ‖ L (1) ‖ key handle (L): lengths that disagree
    /// are `SW_WRONG_LENGTH`; an unknown control byte is `SW_WRONG_DATA`.
    init(control byte: UInt8, data: [UInt8]) throws(StatusWord) {
        guard data.count >= 65, data.count == 65 + Int(data[64]) else { throw .wrongLength }
        guard let control = Control(rawValue: byte) else { throw .wrongData }
        self.control = control
        challenge = Array(data[0..<32])
        application = Array(data[32..<64])
        keyHandle = Array(data[65...])
    }
}
