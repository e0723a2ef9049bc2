import CTAP
import Crypto
import Foundation
import PasskeyClient

extension PasskeydProcess {
    /// Makes a discoverable credential through PasskeyClient's CTAP2 session (CTAP 2.1 §6.1),
    /// with a PIN token when `pin` is given, or built-in UV when `uv`. Returns the credential ID.
    @discardableResult
    public func register(rp: String, user: String, displayName: String? = nil, pin: String? = nil, uv: Bool = false)
        async throws -> [UInt8]
    {
        try await withSession { session in
            let clientDataHash = Array(SHA256.hash(data: Array("register \(rp) \(user)".utf8)))
            var request = MakeCredentialRequest(
                clientDataHash: clientDataHash, rp: PublicKeyCredentialRpEntity(id: rp, name: rp.capitalized),
                user: PublicKeyCredentialUserEntity(
                    id: Array("id-\(user)".utf8), name: user, displayName: displayName ?? user.capitalized),
                pubKeyCredParams: [PublicKeyCredentialParameters(alg: COSEAlgorithm.es256.rawValue)],
                options: RequestOptions(rk: true, uv: uv ? true : nil))
            if let pin {
                let clientPIN = try ClientPINSession(session: session, info: try await session.getInfo())
                let token = try await clientPIN.tokenUsingPIN(pin, permissions: .mc, rpID: rp)
                request.pinUvAuthParam = token.authenticate(clientDataHash)
                request.pinUvAuthProtocol = token.protocolVersion
            }
            let response = try await session.makeCredential(request)
            let authData = try AuthenticatorData(bytes: response.attestation.authenticatorData)
            guard let id = authData.attestedCredentialData?.credentialID else {
                throw FixtureError("no attested credential data")
            }
            return id
        }
    }
}
