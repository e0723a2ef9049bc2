import CBOR

/// The authenticatorClientPIN (0x06) request parameters (CTAP 2.1 §6.5.5).
///
/// Parsing checks that each subcommand carries the fields its steps require
/// (§6.5.5.2–§6.5.5.7): a missing one is `CTAP2_ERR_MISSING_PARAMETER`. Whether the
/// protocol is supported and whether the values are right is the authenticator's call.
public struct ClientPINRequest: Sendable, Hashable {
    enum Key {
        static let pinUvAuthProtocol: CBORValue = 0x01
        static let subCommand: CBORValue = 0x02
        static let keyAgreement: CBORValue = 0x03
        static let pinUvAuthParam: CBORValue = 0x04
        static let newPinEnc: CBORValue = 0x05
        static let pinHashEnc: CBORValue = 0x06
        static let permissions: CBORValue = 0x09
        static let rpId: CBORValue = 0x0A
    }

    /// The protocol the platform chose; absent only for the retries subcommands.
    public var pinUvAuthProtocol: Int?
    public var subCommand: ClientPINSubcommand
    /// The platform's key agreement key, from encapsulate.
    public var keyAgreement: COSEKey?
    public var pinUvAuthParam: [UInt8]?
    public var newPinEnc: [UInt8]?
    public var pinHashEnc: [UInt8]?
    public var permissions: PinUvAuthTokenPermissions?
    public var rpId: String?

    public init(
        subCommand: ClientPINSubcommand,
        pinUvAuthProtocol: Int? = nil,
        keyAgreement: COSEKey? = nil,
        pinUvAuthParam: [UInt8]? = nil,
        newPinEnc: [UInt8]? = nil,
        pinHashEnc: [UInt8]? = nil,
        permissions: PinUvAuthTokenPermissions? = nil,
        rpId: String? = nil
    ) {
        self.pinUvAuthProtocol = pinUvAuthProtocol
        self.subCommand = subCommand
        self.keyAgreement = keyAgreement
        self.pinUvAuthParam = pinUvAuthParam
        self.newPinEnc = newPinEnc
        self.pinHashEnc = pinHashEnc
        self.permissions = permissions
        self.rpId = rpId
    }

    public var cbor: CBORValue {
        .intKeyed([
            (0x01, pinUvAuthProtocol.map { CBORValue($0) }),
            (0x02, CBORValue(subCommand.rawValue)),
            (0x03, keyAgreement?.cbor),
            (0x04, pinUvAuthParam.map { .byteString($0) }),
            (0x05, newPinEnc.map { .byteString($0) }),
            (0x06, pinHashEnc.map { .byteString($0) }),
            (0x09, permissions.map { .unsigned($0.rawValue) }),
            (0x0A, rpId.map { .textString($0) }),
        ])
    }

    /// Parses the request map. An unknown subcommand is `CTAP2_ERR_INVALID_SUBCOMMAND`;
    /// a malformed `keyAgreement` fails as `COSEKey(cbor:)` does.
    public init(cbor: CBORValue) throws(CTAPStatus) {
        let map = try CBORMap(cbor)
        let rawSubCommand = try map.required(Key.subCommand, CBORRead.unsigned)
        guard let subCommand = UInt8(exactly: rawSubCommand).flatMap(ClientPINSubcommand.init(rawValue:)) else {
            throw .invalidSubcommand
        }
        self.subCommand = subCommand
        pinUvAuthProtocol = try map.optional(Key.pinUvAuthProtocol, CBORRead.unsignedInt)
        keyAgreement = try map.optional(Key.keyAgreement, CBORRead.any).map { (v: CBORValue) throws(CTAPStatus) in try COSEKey(cbor: v) }
        pinUvAuthParam = try map.optional(Key.pinUvAuthParam, CBORRead.bytes)
        newPinEnc = try map.optional(Key.newPinEnc, CBORRead.bytes)
        pinHashEnc = try map.optional(Key.pinHashEnc, CBORRead.bytes)
        permissions = try map.optional(Key.permissions, CBORRead.unsigned).map(PinUvAuthTokenPermissions.init(rawValue:))
        rpId = try map.optional(Key.rpId, CBORRead.text)
        try checkRequiredFields()
    }

    /// The first steps of each subcommand: "If any of the following are missing,
    /// return CTAP2_ERR_MISSING_PARAMETER" (§6.5.5.2–§6.5.5.7).
    private func checkRequiredFields() throws(CTAPStatus) {
        let present: [Bool]
        switch subCommand {
        case .getPINRetries, .getUVRetries:
            present = []
        case .getKeyAgreement:
            present = [pinUvAuthProtocol != nil]
        case .setPIN:
            present = [pinUvAuthProtocol != nil, keyAgreement != nil, newPinEnc != nil, pinUvAuthParam != nil]
        case .changePIN:
            present = [pinUvAuthProtocol != nil, keyAgreement != nil, pinHashEnc != nil, newPinEnc != nil, pinUvAuthParam != nil]
        case .getPinToken:
            present = [pinUvAuthProtocol != nil, keyAgreement != nil, pinHashEnc != nil]
        case .getPinUvAuthTokenUsingUvWithPermissions:
            present = [pinUvAuthProtocol != nil, keyAgreement != nil, permissions != nil]
        case .getPinUvAuthTokenUsingPinWithPermissions:
            present = [pinUvAuthProtocol != nil, keyAgreement != nil, pinHashEnc != nil, permissions != nil]
        }
        guard !present.contains(false) else { throw .missingParameter }
    }

    /// A major-type-0 integer that fits in `Int`.
}
