import CTAP
import PasskeydMacros

/// RegistrationResponseJSON (WebAuthn L3 §5.1): a `PublicKeyCredential` from `create()`, as
/// `toJSON()` renders it.
public typealias RegistrationResponseJSON = PublicKeyCredentialJSON<AuthenticatorAttestationResponseJSON>

extension PublicKeyCredentialJSON where Response == AuthenticatorAttestationResponseJSON {
    /// Assembles a response the way a client does after `authenticatorMakeCredential`
    /// (WebAuthn L3 §5.1.3): the credential ID, authenticator data, public key and algorithm are
    /// read from the attestation object.
    public init(
        clientDataJSON: [UInt8], attestationObject: AttestationObject, transports: [String],
        authenticatorAttachment: AuthenticatorAttachment? = nil,
        clientExtensionResults: AuthenticationExtensionsClientOutputsJSON = .init()
    ) throws(CTAPStatus) {
        let authData = try AuthenticatorData(bytes: attestationObject.authenticatorData)
        guard let attested = authData.attestedCredentialData else { throw .invalidParameter }
        self.init(
            credentialID: attested.credentialID,
            response: AuthenticatorAttestationResponseJSON(
                clientDataJSON: clientDataJSON,
                authenticatorData: attestationObject.authenticatorData,
                transports: transports,
                publicKey: attested.publicKey.subjectPublicKeyInfo,
                publicKeyAlgorithm: attested.publicKey.algorithm.rawValue,
                attestationObject: attestationObject.cbor.encoded),
            authenticatorAttachment: authenticatorAttachment,
            clientExtensionResults: clientExtensionResults)
    }
}

/// AuthenticatorAttestationResponseJSON (WebAuthn L3 §5.1); `transports`, `publicKeyAlgorithm`
/// and the attestation object are required, `publicKey` may be absent.
@MemberwiseInit
public struct AuthenticatorAttestationResponseJSON: AuthenticatorResponseJSON {
    @Base64URLEncoded public var clientDataJSON: [UInt8]
    @Base64URLEncoded public var authenticatorData: [UInt8]
    /// Kept as strings: unknown transports must survive (WebAuthn L3 §5.8.4).
    public var transports: [String]
    /// The credential public key as a DER SubjectPublicKeyInfo, when the client can express it.
    @Base64URLEncoded public var publicKey: [UInt8]?
    /// The credential's COSEAlgorithmIdentifier.
    public var publicKeyAlgorithm: Int
    /// The CBOR attestation object (WebAuthn L3 §6.5.4).
    @Base64URLEncoded public var attestationObject: [UInt8]
}
