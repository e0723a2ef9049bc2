import CBOR

/// passkeydExport (0xB0) parameters: one page of the discoverable credentials, optionally of one RP.
public struct ExportParameters: CTAPStructure, Sendable, Hashable {
    enum CodingKeys: Int, CodingKey {
        case rpID = 0x01
        case includePrivateKeys, offset
    }

    public var rpID: String?
    public var includePrivateKeys: Bool?
    /// How many credentials earlier pages returned.
    @Unsigned public var offset: Int?

    public init(rpID: String? = nil, includePrivateKeys: Bool? = nil, offset: Int? = nil) {
        self.rpID = rpID
        self.includePrivateKeys = includePrivateKeys
        self.offset = offset
    }
}

/// passkeydExport's answer: a page of credentials (RP ID, then creation order) and how many there are.
public struct ExportResponse: CTAPStructure, Sendable, Hashable {
    enum CodingKeys: Int, CodingKey {
        case credentials = 0x01
        case total
    }

    @Defaulted public var credentials: [CredentialRecord]
    @Unsigned public var total: Int?

    public init(credentials: [CredentialRecord], total: Int) {
        self.credentials = credentials
        self.total = total
    }
}

/// passkeydImport (0xB1) parameters: one credential, stored as a discoverable credential.
public struct ImportParameters: CTAPStructure, Sendable, Hashable {
    enum CodingKeys: Int, CodingKey {
        case credential = 0x01
    }

    public var credential: CredentialRecord

    public init(credential: CredentialRecord) {
        self.credential = credential
    }
}

/// passkeydCredentialFlags (0xB2) parameters: a stored credential's backup flags (WebAuthn L3 §6.1.3).
public struct CredentialFlagsParameters: CTAPStructure, Sendable, Hashable {
    enum CodingKeys: Int, CodingKey {
        case credentialID = 0x01
        case backupEligible, backupState
    }

    public var credentialID: [UInt8]
    /// Absent: unchanged.
    public var backupEligible: Bool?
    public var backupState: Bool?

    public init(credentialID: [UInt8], backupEligible: Bool? = nil, backupState: Bool? = nil) {
        self.credentialID = credentialID
        self.backupEligible = backupEligible
        self.backupState = backupState
    }
}
