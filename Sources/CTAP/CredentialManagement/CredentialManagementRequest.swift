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
    /// The `subCommandParams` bytes as received.
    private var receivedParams = ReceivedEncoding()

    /// The message pinUvAuthParam is computed over: the subcommand byte followed by the
    /// CBOR encoding of subCommandParams, when present (§6.8.1–§6.8.7).
    public var authenticatedMessage: [UInt8] {
        [subCommand.rawValue] + (receivedParams.bytes ?? subCommandParams?.cbor.encoded ?? [])
    }

    /// The same message for a subcommand and its parameters, as a platform computes it.
    public static func authenticatedMessage(
        _ subCommand: CredentialManagementSubcommand, _ params: CredentialManagementParameters?
    ) -> [UInt8] {
        CredentialManagementRequest(subCommand: subCommand, subCommandParams: params).authenticatedMessage
    }

    /// Parses the command's parameter bytes, keeping the raw `subCommandParams` item for
    /// `authenticatedMessage`: the decoder accepts non-shortest encodings, so re-encoding
    /// could differ from what the platform MACed.
    public init(parameters bytes: [UInt8]) throws(CTAPStatus) {
        let (value, params) = try ReceivedEncoding.decode(bytes, keeping: CodingKeys.subCommandParams.rawValue)
        try self.init(cbor: value)
        receivedParams = params
    }
}

/// The command this request is sent under, and its answer (CTAP 2.1 §6).
extension CredentialManagementRequest: CTAPCommandRequest {
    public typealias Response = CredentialManagementResponse?
    public static let command = CTAPCommand.credentialManagement
}
