import CBOR
import PasskeydMacros

/// The authenticatorClientPIN (0x06) request parameters (CTAP 2.1 §6.5.5).
///
/// Parsing checks that each subcommand carries the fields its steps require
/// (§6.5.5.2–§6.5.5.7): a missing one is `CTAP2_ERR_MISSING_PARAMETER`. Whether the
/// protocol is supported and whether the values are right is the authenticator's call.
@MemberwiseInit
public struct ClientPINRequest: CTAPStructure, Sendable, Hashable {
    enum CodingKeys: Int, CodingKey {
        case pinUvAuthProtocol = 0x01
        case subCommand, keyAgreement, pinUvAuthParam, newPinEnc, pinHashEnc
        case permissions = 0x09
        case rpId
    }

    /// Read first: an unknown subcommand is `CTAP2_ERR_INVALID_SUBCOMMAND` whatever else is wrong.
    public var subCommand: ClientPINSubcommand
    /// The protocol the platform chose; absent only for the retries subcommands.
    @Unsigned public var pinUvAuthProtocol: Int?
    /// The platform's key agreement key, from encapsulate.
    public var keyAgreement: COSEKey?
    public var pinUvAuthParam: [UInt8]?
    public var newPinEnc: [UInt8]?
    public var pinHashEnc: [UInt8]?
    public var permissions: PinUvAuthTokenPermissions?
    public var rpId: String?

    /// The subcommand a request names, read alone: what a device that lacks it answers
    /// `CTAP2_ERR_INVALID_SUBCOMMAND` to before judging the rest.
    public static func subCommand(in value: CBORValue) -> ClientPINSubcommand? {
        guard let map = try? CBORMap(value),
            let raw = try? map.optional(CBORValue(CodingKeys.subCommand.rawValue), CBORRead.unsigned),
            raw <= UInt8.max
        else { return nil }
        return ClientPINSubcommand(rawValue: UInt8(raw))
    }

    /// The first steps of each subcommand: "If any of the following are missing,
    /// return CTAP2_ERR_MISSING_PARAMETER" (§6.5.5.2–§6.5.5.7).
    public func validate() throws(CTAPStatus) {
        let present: [Bool]
        switch subCommand {
        case .getPINRetries, .getUVRetries:
            present = []
        case .getKeyAgreement:
            present = [pinUvAuthProtocol != nil]
        case .setPIN:
            present = [pinUvAuthProtocol != nil, keyAgreement != nil, newPinEnc != nil, pinUvAuthParam != nil]
        case .changePIN:
            present = [
                pinUvAuthProtocol != nil, keyAgreement != nil, pinHashEnc != nil, newPinEnc != nil,
                pinUvAuthParam != nil
            ]
        case .getPinToken:
            present = [pinUvAuthProtocol != nil, keyAgreement != nil, pinHashEnc != nil]
        case .getPinUvAuthTokenUsingUvWithPermissions:
            present = [pinUvAuthProtocol != nil, keyAgreement != nil, permissions != nil]
        case .getPinUvAuthTokenUsingPinWithPermissions:
            present = [pinUvAuthProtocol != nil, keyAgreement != nil, pinHashEnc != nil, permissions != nil]
        }
        guard !present.contains(false) else { throw .missingParameter }
    }
}

/// The command this request is sent under, and its answer (CTAP 2.1 §6).
extension ClientPINRequest: CTAPCommandRequest {
    public typealias Response = ClientPINResponse?
    public static let command = CTAPCommand.clientPIN
}
