import CBOR
import PasskeydMacros

/// passkeydExport (0xB0) parameters: one page of the discoverable credentials, optionally of one RP.
@MemberwiseInit
public struct ExportParameters: CTAPStructure, Sendable, Hashable {
    enum CodingKeys: Int, CodingKey {
        case rpID = 0x01
        case includePrivateKeys, offset, credentialID
    }

    public var rpID: String?
    public var includePrivateKeys: Bool?
    /// How many credentials earlier pages returned.
    @Unsigned public var offset: Int?
    /// Only the credential with this ID, discoverable or not (none: an empty page).
    public var credentialID: [UInt8]?
}

/// passkeydExport's answer: a page of credentials (RP ID, then creation order) and how many there are.
@MemberwiseInit
public struct ExportResponse: CTAPStructure, CTAPCommandResponse, Sendable, Hashable {
    enum CodingKeys: Int, CodingKey {
        case credentials = 0x01
        case total
    }

    @Defaulted public var credentials: [CredentialRecord]
    @Unsigned public var total: Int?
}

/// passkeydImport (0xB1) parameters: one credential, stored as a discoverable credential, or
/// as a non-discoverable one when its record says `discoverable: false`.
@MemberwiseInit
public struct ImportParameters: CTAPStructure, Sendable, Hashable {
    enum CodingKeys: Int, CodingKey {
        case credential = 0x01
    }

    public var credential: CredentialRecord
}

/// passkeydCredentialFlags (0xB2) parameters: a stored credential's backup flags (WebAuthn L3 §6.1.3)
/// and signature counter (§6.1.1).
@MemberwiseInit
public struct CredentialFlagsParameters: CTAPStructure, Sendable, Hashable {
    enum CodingKeys: Int, CodingKey {
        case credentialID = 0x01
        case backupEligible, backupState, signCount
    }

    public var credentialID: [UInt8]
    /// Absent: unchanged.
    public var backupEligible: Bool?
    public var backupState: Bool?
    /// The last count used: the next assertion reports one more (Chrome's `signCount`). Absent: unchanged.
    @Unsigned public var signCount: Int?
}

/// passkeydDelete (0xB4) parameters: the credential to remove, discoverable or not.
@MemberwiseInit
public struct DeleteParameters: CTAPStructure, Sendable, Hashable {
    enum CodingKeys: Int, CodingKey {
        case credentialID = 0x01
    }

    public var credentialID: [UInt8]
}

extension ExportParameters: VendorCommandParameters {
    public typealias Response = ExportResponse
    public static let command = CTAPCommand.passkeydExport
}

extension ImportParameters: VendorCommandParameters {
    public typealias Response = StatusOnly
    public static let command = CTAPCommand.passkeydImport
}

extension CredentialFlagsParameters: VendorCommandParameters {
    public typealias Response = StatusOnly
    public static let command = CTAPCommand.passkeydCredentialFlags
}

extension DeleteParameters: VendorCommandParameters {
    public typealias Response = StatusOnly
    public static let command = CTAPCommand.passkeydDelete
}
