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
    /// The `subCommandParams` bytes as received.
    private var receivedParams = ReceivedEncoding()

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

    /// The message pinUvAuthParam is computed over (§6.7.4–§6.7.8):
    /// modality ‖ subCommand ‖ subCommandParams.
    public var authenticatedMessage: [UInt8] {
        [modality?.rawValue ?? 0, subCommand?.rawValue ?? 0]
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
extension BioEnrollmentRequest: CTAPCommandRequest {
    public typealias Response = BioEnrollmentResponse?
    public static let command = CTAPCommand.bioEnrollment
}
