import CBOR
import PasskeydMacros

/// The authenticatorCredentialManagement (0x0A, and 0x41 under CTAP 2.1-PRE) request
/// parameters (CTAP 2.1 §6.8).
///
/// pinUvAuthParam authenticates `subCommand || subCommandParams` as the platform
/// encoded them, so a request parsed from the wire keeps those exact bytes in
/// `authenticatedMessage`; a request built in code uses the canonical encoding.
@MemberwiseInit
public struct CredentialManagementRequest: CTAPStructure, Sendable, Hashable {
    enum CodingKeys: Int, CodingKey {
        case subCommand = 0x01
        case subCommandParams, pinUvAuthProtocol, pinUvAuthParam
    }

    public var subCommand: CredentialManagementSubcommand
    public var subCommandParams: CredentialManagementParameters?
    @Unsigned public var pinUvAuthProtocol: Int?
    public var pinUvAuthParam: [UInt8]?
    /// The `subCommandParams` bytes as received (`SubcommandRequest`).
    public var receivedParams: ReceivedEncoding = ReceivedEncoding()

    /// The message's prefix (§6.8.1–§6.8.7): the subcommand byte, then subCommandParams when present.
    public var authenticatedPrefix: [UInt8] { [subCommand.rawValue] }

    /// The same message for a subcommand and its parameters, as a platform computes it.
    public static func authenticatedMessage(
        _ subCommand: CredentialManagementSubcommand, _ params: CredentialManagementParameters?
    ) -> [UInt8] {
        CredentialManagementRequest(subCommand: subCommand, subCommandParams: params).authenticatedMessage
    }
}

/// The command this request is sent under, and its answer (CTAP 2.1 §6).
extension CredentialManagementRequest: SubcommandRequest {
    public static var parametersKey: Int { CodingKeys.subCommandParams.rawValue }
    public typealias Response = CredentialManagementResponse?
    public static let command = CTAPCommand.credentialManagement
}
