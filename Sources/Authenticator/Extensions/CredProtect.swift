import CTAP

/// credProtect (CTAP 2.1 §12.1): the level the platform asks for is kept with the credential
/// and reported back; the level then decides who may see the credential.
struct CredProtectExtension: StoresWithCredential {
    typealias Wire = CredProtect

    /// The level: always in the record (`credProtect`, a member from the first record on), and
    /// the low two bits of a wrapped ID's policy byte. Level 1 unless the platform asked for another.
    static let stored = ExtensionStoredPart<UInt8, CredentialProtection>(
        name: "credProtect", alwaysRecorded: true,
        value: { $0.flatMap { CredentialProtection(rawValue: Int($0)) } ?? .userVerificationOptional },
        stored: { UInt8($0.rawValue) },
        policy: .init(mask: 0x03, bits: { UInt8($0.rawValue) }, value: { CredentialProtection(rawValue: Int($0)) }))

    func makeCredentialOutput(_ input: CredentialProtection, _ context: ExtensionContext) async throws(CTAPStatus)
        -> CredentialProtection?
    {
        context.credential[Self.stored]
    }
}

extension CredentialSource {
    /// The record's credProtect level: 1 userVerificationOptional, 2 …WithCredentialIDList, 3 …Required.
    public var credProtect: UInt8 {
        get { self[recorded: CredProtectExtension.stored] ?? 1 }
        set { self[recorded: CredProtectExtension.stored] = newValue }
    }
}

extension CredentialProtection {
    /// Whether a credential at this level may answer (CTAP 2.1 §12.1): level 3 only with user
    /// verification; level 2 without it only when the RP named the credential (an allow or
    /// exclude list), never when the authenticator discovers credentials on its own.
    func permits(userVerified: Bool, discovering: Bool) -> Bool {
        switch self {
        case .userVerificationOptional: return true
        case .userVerificationOptionalWithCredentialIDList: return userVerified || !discovering
        case .userVerificationRequired: return userVerified
        }
    }
}
