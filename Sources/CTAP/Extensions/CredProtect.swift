import CBOR

/// credProtect levels (CTAP 2.1 §12.1, "Credential Protection"): who may see a credential.
public enum CredentialProtection: Int, Sendable, Hashable, CaseIterable, Codable {
    /// Usable with or without user verification.
    case userVerificationOptional = 1
    /// Without user verification only when the RP names it in an allow list.
    case userVerificationOptionalWithCredentialIDList = 2
    /// Only with user verification.
    case userVerificationRequired = 3
}

extension CredentialProtection: CBORRepresentable {
    /// A non-integer is `CTAP2_ERR_CBOR_UNEXPECTED_TYPE`; an integer outside 1–3 is not a policy
    /// this specification defines, `CTAP1_ERR_INVALID_PARAMETER`.
    public init(cbor: CBORValue) throws(CTAPStatus) {
        guard let number = cbor.intValue else { throw .cborUnexpectedType }
        guard let level = CredentialProtection(rawValue: number) else { throw .invalidParameter }
        self = level
    }

    public var cbor: CBORValue { CBORValue(rawValue) }
}

/// The credProtect extension (CTAP 2.1 §12.1): the platform asks for a level at creation;
/// the authenticator reports the level it applied.
public enum CredProtect: CTAPExtension {
    public static let identifier = "credProtect"
    public typealias MakeCredentialInput = CredentialProtection
    public typealias MakeCredentialOutput = CredentialProtection
}
