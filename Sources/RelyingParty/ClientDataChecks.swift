import CTAP
import Crypto
import WebAuthn

extension RelyingParty {
    /// The checks both ceremonies make on the client data (WebAuthn L3 §7.1 steps 5–10,
    /// §7.2 steps 8–13).
    func checkClientData(
        _ json: [UInt8], type: CollectedClientData.CeremonyType,
        challenge: [UInt8]
    ) throws(VerificationError) -> CollectedClientData {
        let clientData: CollectedClientData
        do throws(CollectedClientData.ParseError) {
            clientData = try CollectedClientData(json: json)
        } catch .unknownType(let found) {
            throw .clientDataTypeMismatch(expected: type.rawValue, found: found)
        } catch {
            throw .malformedClientData
        }
        guard clientData.type == type else {
            throw .clientDataTypeMismatch(expected: type.rawValue, found: clientData.type.rawValue)
        }
        guard clientData.challenge == challenge else { throw .challengeMismatch }
        guard origins.contains(clientData.origin) else { throw .originMismatch(clientData.origin) }
        // An RP that names no top-level origin expects no iframe ceremony at all.
        if clientData.crossOrigin, topOrigins.isEmpty { throw .crossOriginNotAllowed }
        if let topOrigin = clientData.topOrigin, !topOrigins.contains(topOrigin) {
            throw .topOriginNotAllowed(topOrigin)
        }
        return clientData
    }

    /// The checks both ceremonies make on the authenticator data's RP ID hash and flags
    /// (WebAuthn L3 §7.1 steps 13–16, §7.2 steps 14–17).
    func checkAuthenticatorData(_ authData: AuthenticatorData, requireUserVerification: Bool) throws(VerificationError)
    {
        guard authData.rpIDHash == Array(SHA256.hash(data: Array(id.utf8))) else { throw .rpIDHashMismatch }
        guard authData.flags.contains(.userPresent) else { throw .userNotPresent }
        if requireUserVerification, !authData.flags.contains(.userVerified) { throw .userNotVerified }
        if authData.flags.contains(.backedUp), !authData.flags.contains(.backupEligible) {
            throw .backupStateWithoutEligibility
        }
    }

    /// A `public-key` credential whose `id` is its `rawId` base64url-encoded (WebAuthn L3 §5.1, `id`).
    func checkCredentialIdentity(_ credential: PublicKeyCredentialJSON<some AuthenticatorResponseJSON>)
        throws(VerificationError)
    {
        guard credential.type == "public-key" else { throw .unsupportedCredentialType(credential.type) }
        guard credential.id == Base64URL.encode(credential.rawId) else { throw .credentialIDMismatch }
    }
}
