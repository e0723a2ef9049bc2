import PasskeydMacros

/// Who sends a CTAP message: one CTAPHID channel of one connection, or one in-process
/// client. State that spans commands (getNextAssertion, credential management
/// enumerations) belongs to the caller that started it (CTAP 2.1 §6.3, §6.8).
@MemberwiseInit
public struct CTAPCaller: Hashable, Sendable, CustomStringConvertible {
    /// The connection (an open handle on the device) the message came through.
    public let connection: UInt64
    /// The CTAPHID channel on that connection (CTAP 2.1 §11.2.3); 0 where there are none.
    public let channel: UInt32

    /// A caller no other connection shares, for transports without channels. Daemon
    /// connections count up from 1, so the top bit keeps the two apart.
    public static func unique() -> CTAPCaller {
        CTAPCaller(connection: UInt64.random(in: 0...UInt64.max) | 1 << 63, channel: 0)
    }

    public var description: String { "\(connection)/\(String(channel, radix: 16))" }
}
