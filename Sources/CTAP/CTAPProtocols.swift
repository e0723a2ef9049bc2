import PasskeydMacros

/// Which authenticator protocols a message handler answers: CTAP2 (CBOR messages) and
/// CTAP1/U2F (APDUs). A transport says it to the host, as CTAPHID INIT's capability flags
/// do (CTAP 2.1 §11.2.9.1.3: CBOR set, NMSG clear when MSG is served).
@MemberwiseInit
public struct CTAPProtocols: OptionSet, Sendable, Hashable {
    public let rawValue: UInt8

    /// CTAP1/U2F over CTAPHID_MSG.
    public static let ctap1 = CTAPProtocols(rawValue: 1 << 0)
    /// CTAP2 over CTAPHID_CBOR.
    public static let ctap2 = CTAPProtocols(rawValue: 1 << 1)
}
