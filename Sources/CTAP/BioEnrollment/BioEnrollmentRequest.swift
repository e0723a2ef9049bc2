import CBOR
import PasskeydMacros

/// The authenticatorBioEnrollment (0x09) request parameters (CTAP 2.1 §6.7): either getModality,
/// or a subcommand for a modality.
///
/// pinUvAuthParam authenticates modality ‖ subCommand ‖ subCommandParams as the platform encoded
/// them, so a request parsed from the wire keeps those bytes.
@MemberwiseInit
public struct BioEnrollmentRequest: CTAPStructure, Sendable, Hashable {
    enum CodingKeys: Int, CodingKey {
        case modality = 0x01
        case subCommand, subCommandParams, pinUvAuthProtocol, pinUvAuthParam, getModality
    }

    public var modality: BioModality? = .fingerprint
    public var subCommand: BioEnrollmentSubcommand?
    public var subCommandParams: BioEnrollmentParameters?
    @Unsigned public var pinUvAuthProtocol: Int?
    public var pinUvAuthParam: [UInt8]?
    /// True asks only which modality the device has (§6.7.2).
    public var getModality: Bool?
    /// The `subCommandParams` bytes as received (`SubcommandRequest`).
    public var receivedParams: ReceivedEncoding = ReceivedEncoding()

    /// What the platform asks for, once the shape is known to be one of the two (§6.7.1): a
    /// request with neither getModality nor a subcommand is `CTAP2_ERR_MISSING_PARAMETER`, and so
    /// is a subcommand without its modality.
    public enum Action: Sendable, Hashable {
        case getModality
        case subcommand(BioModality, BioEnrollmentSubcommand)
    }

    public func action() throws(CTAPStatus) -> Action {
        if getModality == true { return .getModality }
        guard let subCommand, let modality else { throw .missingParameter }
        return .subcommand(modality, subCommand)
    }

    /// The message's prefix (§6.7.4–§6.7.8): modality ‖ subCommand, then subCommandParams.
    public var authenticatedPrefix: [UInt8] { [modality?.rawValue ?? 0, subCommand?.rawValue ?? 0] }
}

/// The command this request is sent under, and its answer (CTAP 2.1 §6).
extension BioEnrollmentRequest: SubcommandRequest {
    public static var parametersKey: Int { CodingKeys.subCommandParams.rawValue }
    public typealias Response = BioEnrollmentResponse?
    public static let command = CTAPCommand.bioEnrollment
}
