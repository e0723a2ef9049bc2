/// Why a relying party rejected a registration or authentication response: one case per
/// check of WebAuthn L3 §7.1 and §7.2.
public enum VerificationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The response's `type` is not `public-key`.
    case unsupportedCredentialType(String)
    /// `id` is not the base64url encoding of `rawId`, or the attested credential ID differs from `rawId`.
    case credentialIDMismatch
    /// The challenge in the client data was never issued, already used, or issued for the other ceremony.
    case unknownChallenge
    /// `clientDataJSON` is not valid client data (§7.1 steps 5–6, §7.2 steps 8–9).
    case malformedClientData
    /// `C.type` is not the ceremony's (§7.1 step 7, §7.2 step 10).
    case clientDataTypeMismatch(expected: String, found: String)
    /// `C.challenge` is not the challenge of the options (§7.1 step 8, §7.2 step 11).
    case challengeMismatch
    /// `C.origin` is not one the relying party expects (§7.1 step 9, §7.2 step 12).
    case originMismatch(String)
    /// `C.topOrigin` is present but not an expected top-level origin (§7.1 step 10, §7.2 step 13).
    case topOriginNotAllowed(String)
    /// `C.crossOrigin` is true and the relying party names no top-level origin, so it expects no
    /// ceremony from a cross-origin iframe (§7.1 step 10, §7.2 step 13).
    case crossOriginNotAllowed
    /// The attestation object is not CBOR of the §6.5.4 shape (§7.1 step 12).
    case malformedAttestationObject
    /// The authenticator data does not parse (WebAuthn L3 §6.1).
    case malformedAuthenticatorData
    /// `rpIdHash` is not SHA-256 of the RP ID (§7.1 step 13, §7.2 step 14).
    case rpIDHashMismatch
    /// The UP flag is clear (§7.1 step 14, §7.2 step 15).
    case userNotPresent
    /// User verification was required and the UV flag is clear (§7.1 step 15, §7.2 step 16).
    case userNotVerified
    /// BS is set while BE is clear (§7.1 step 16, §7.2 step 17).
    case backupStateWithoutEligibility
    /// BE differs from the value recorded at registration, which cannot change (§6.1.3, §7.2 step 18).
    case backupEligibilityChanged
    /// Registration authenticator data carries no attested credential data (AT flag, §6.5.2).
    case missingAttestedCredentialData
    /// The credential key's algorithm is not in `pubKeyCredParams` (§7.1 step 19).
    case algorithmNotAllowed(Int)
    /// An attestation statement format this relying party does not verify (§7.1 step 21).
    case unsupportedAttestationFormat(String)
    /// The attestation statement does not match its format's syntax (§8.2, §8.7).
    case malformedAttestationStatement
    /// `packed` attestation with an `x5c` chain: no trust anchors are configured to verify it (§7.1 steps 23–24).
    case attestationTrustPathUnsupported
    /// Packed self attestation whose `alg` is not the credential key's algorithm (§8.2).
    case attestationAlgorithmMismatch(statement: Int, credential: Int)
    /// The attestation signature does not verify (§7.1 step 22, §8.2).
    case invalidAttestationSignature
    /// The credential ID is longer than 1023 bytes (§7.1 step 25).
    case credentialIDTooLong
    /// `credential.id` is not in `allowCredentials` (§7.2 step 5).
    case credentialNotAllowed
    /// No credential record has this ID (§7.2 step 6).
    case unknownCredential
    /// The credential belongs to another user than the one identified before the ceremony (§7.2 step 6).
    case credentialNotOwnedByUser
    /// `userHandle` is absent and no user was identified before the ceremony (§7.2 step 6).
    case missingUserHandle
    /// `userHandle` is not the credential owner's user handle (§7.2 step 6).
    case userHandleMismatch
    /// The stored public key cannot verify signatures (not a point on its curve, or not a signing algorithm).
    case unusablePublicKey
    /// The assertion signature does not verify (§7.2 step 21).
    case invalidSignature
    /// The signature counter did not increase: a signal that the authenticator may be cloned (§7.2 step 22, §6.1.1).
    case signCountNotIncreased(stored: UInt32, received: UInt32)

    public var description: String {
        switch self {
        case .unsupportedCredentialType(let type): return "credential type \"\(type)\" is not public-key"
        case .credentialIDMismatch: return "credential id, rawId and attested credential ID disagree"
        case .unknownChallenge: return "challenge was not issued, was already used, or belongs to another ceremony"
        case .malformedClientData: return "clientDataJSON is not valid client data"
        case .clientDataTypeMismatch(let expected, let found):
            return "client data type is \"\(found)\", expected \"\(expected)\""
        case .challengeMismatch: return "client data challenge is not the expected challenge"
        case .originMismatch(let origin): return "origin \"\(origin)\" is not an expected origin"
        case .topOriginNotAllowed(let origin): return "top origin \"\(origin)\" is not an expected top-level origin"
        case .crossOriginNotAllowed:
            return
                "client data says crossOrigin is true and this relying party expects no ceremony from a cross-origin iframe"
        case .malformedAttestationObject: return "attestation object is malformed"
        case .malformedAuthenticatorData: return "authenticator data is malformed"
        case .rpIDHashMismatch: return "rpIdHash is not SHA-256 of the RP ID"
        case .userNotPresent: return "user presence flag is not set"
        case .userNotVerified: return "user verification was required but the UV flag is not set"
        case .backupStateWithoutEligibility: return "backup state flag set without backup eligibility"
        case .backupEligibilityChanged: return "backup eligibility differs from the registered credential's"
        case .missingAttestedCredentialData: return "authenticator data has no attested credential data"
        case .algorithmNotAllowed(let alg): return "credential algorithm \(alg) is not in pubKeyCredParams"
        case .unsupportedAttestationFormat(let fmt): return "attestation format \"\(fmt)\" is not supported"
        case .malformedAttestationStatement: return "attestation statement is malformed for its format"
        case .attestationTrustPathUnsupported:
            return "attestation with a certificate chain cannot be verified without trust anchors"
        case .attestationAlgorithmMismatch(let statement, let credential):
            return "self attestation alg \(statement) is not the credential key's algorithm \(credential)"
        case .invalidAttestationSignature: return "attestation signature does not verify"
        case .credentialIDTooLong: return "credential ID is longer than 1023 bytes"
        case .credentialNotAllowed: return "credential is not in allowCredentials"
        case .unknownCredential: return "no credential is registered with this ID"
        case .credentialNotOwnedByUser: return "credential does not belong to the identified user"
        case .missingUserHandle: return "userHandle is required to identify the user"
        case .userHandleMismatch: return "userHandle is not the credential owner's"
        case .unusablePublicKey: return "stored public key cannot verify signatures"
        case .invalidSignature: return "assertion signature does not verify"
        case .signCountNotIncreased(let stored, let received):
            return "signature counter \(received) is not above the stored \(stored): the authenticator may be cloned"
        }
    }
}
