import CTAP
import Crypto

/// The CTAP2 requests every figure sends: ES256, discoverable, no PIN, no UV.
enum BenchRequests {
    /// The RP that holds exactly one resident credential; every getAssertion discovers it.
    static let signInRP = PublicKeyCredentialRpEntity(id: "signin.bench.example", name: "Bench sign-in")
    /// Where the makeCredential figures register account `user`: an RP of its own, so the
    /// sign-in RP keeps its single credential and every registration meets an RP with no
    /// accounts yet. (makeCredential reads every credential of its RP to find the one it
    /// replaces, so registrations piling up under one RP would slow down as they go.)
    static func registrationRP(user: UInt64) -> PublicKeyCredentialRpEntity {
        PublicKeyCredentialRpEntity(id: "u\(user).register.bench.example", name: "Bench registration")
    }

    static func clientDataHash() -> [UInt8] {
        Array(SHA256.hash(data: Array("bench client data".utf8)))
    }

    /// A resident-key registration (CTAP 2.1 §6.1, option `rk`); `user` keeps each one a new account.
    static func makeCredential(rp: PublicKeyCredentialRpEntity, user: UInt64) -> MakeCredentialRequest {
        let handle = withUnsafeBytes(of: user.bigEndian) { Array($0) }
        return MakeCredentialRequest(
            clientDataHash: clientDataHash(), rp: rp,
            user: PublicKeyCredentialUserEntity(id: handle, name: "user\(user)", displayName: "User \(user)"),
            pubKeyCredParams: [PublicKeyCredentialParameters(alg: COSEAlgorithm.es256.rawValue)],
            options: RequestOptions(rk: true))
    }

    /// A discoverable getAssertion (empty allowList, CTAP 2.1 §6.2.2 step 9) with user presence.
    static func getAssertion(rpID: String) -> GetAssertionRequest {
        GetAssertionRequest(rpID: rpID, clientDataHash: clientDataHash())
    }
}
