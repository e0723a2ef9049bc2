import CTAP
import PasskeydMacros

/// One RP with discoverable credentials, as RP enumeration reports it (CTAP 2.1 §6.8.3).
@MemberwiseInit
public struct ResidentRelyingParty: Sendable, Hashable {
    /// The RP's ID, and its name when stored.
    public var rp: PublicKeyCredentialRpEntity
    /// SHA-256 of the RP ID: what enumerateCredentialsBegin takes.
    public var rpIDHash: [UInt8]

    /// An RP as enumeration reports it.

    init(_ response: CredentialManagementResponse) throws(CTAP2Error) {
        guard let rp = response.rp, let hash = response.rpIDHash else { throw .malformedResponse }
        self.init(rp: rp, rpIDHash: hash)
    }
}
