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
    /// The `subCommandParams` bytes as received (`SubcommandRequest`).
    public var receivedParams: ReceivedEncoding = ReceivedEncoding()

    /// The message's prefix (§6.11.1): 32×0xff ‖ 0x0d ‖ subCommand, then subCommandParams.
    public var authenticatedPrefix: [UInt8] {
        [UInt8](repeating: 0xFF, count: 32) + [CTAPCommand.config.rawValue, subCommand.rawValue]
    }
}

/// The command this request is sent under, and its answer (CTAP 2.1 §6).
extension AuthenticatorConfigRequest: SubcommandRequest {
    public static var parametersKey: Int { CodingKeys.subCommandParams.rawValue }
    public typealias Response = StatusOnly
    public static let command = CTAPCommand.config
}
