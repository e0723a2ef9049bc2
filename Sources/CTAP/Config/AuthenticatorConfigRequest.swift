import CBOR
import PasskeydMacros

/// The authenticatorConfig (0x0D) request parameters (CTAP 2.1 §6.11).
///
/// pinUvAuthParam authenticates 32×0xff ‖ 0x0d ‖ subCommand ‖ subCommandParams as the platform
/// encoded them, so a request parsed from the wire keeps those bytes.
@MemberwiseInit
public struct AuthenticatorConfigRequest: CTAPStructure, Sendable, Hashable {
    enum CodingKeys: Int, CodingKey {
        case subCommand = 0x01
        case subCommandParams, pinUvAuthProtocol, pinUvAuthParam
    }

    /// Read first: an unknown subcommand is `CTAP2_ERR_INVALID_SUBCOMMAND` whatever else is wrong.
    public var subCommand: AuthenticatorConfigSubcommand
    /// setMinPINLength's parameters; the other subcommands take none.
    public var subCommandParams: SetMinPINLengthParameters?
    @Unsigned public var pinUvAuthProtocol: Int?
    public var pinUvAuthParam: [UInt8]?
    /// The `subCommandParams` bytes as received.
    private var receivedParams = ReceivedEncoding()

    /// The message pinUvAuthParam is computed over (§6.11.1): 32×0xff ‖ 0x0d ‖ subCommand ‖ subCommandParams.
    public var authenticatedMessage: [UInt8] {
        [UInt8](repeating: 0xFF, count: 32) + [CTAPCommand.config.rawValue, subCommand.rawValue]
            + (receivedParams.bytes ?? subCommandParams?.cbor.encoded ?? [])
    }

    /// Parses the command's parameter bytes, keeping the raw `subCommandParams` item for
    /// `authenticatedMessage` (a re-encoding could differ from what the platform MACed).
    public init(parameters bytes: [UInt8]) throws(CTAPStatus) {
        let (value, params) = try ReceivedEncoding.decode(bytes, keeping: CodingKeys.subCommandParams.rawValue)
        try self.init(cbor: value)
        receivedParams = params
    }
}

/// The command this request is sent under, and its answer (CTAP 2.1 §6).
extension AuthenticatorConfigRequest: CTAPCommandRequest {
    public typealias Response = StatusOnly
    public static let command = CTAPCommand.config
}
