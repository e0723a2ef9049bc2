import PasskeydMacros

/// AuthenticationExtensionsClientInputsJSON (WebAuthn L3 §5.1.8, §9): the client extension
/// inputs passkeyd understands. Inputs for other extensions are ignored on decoding, as a
/// client ignores extensions it does not support (WebAuthn L3 §9).
@MemberwiseInit
public struct AuthenticationExtensionsClientInputsJSON: Sendable, Hashable, Codable {
    /// `credProps` (WebAuthn L3 §10.1.3): ask the client to report whether the credential is discoverable.
    public var credProps: Bool?
    /// `prf` (WebAuthn L3 §10.1.4): pseudo-random values from the credential, through hmac-secret.
    public var prf: AuthenticationExtensionsPRFInputsJSON?
    /// `largeBlob` (WebAuthn L3 §10.1.5): a blob stored with the credential, through largeBlobKey.
    public var largeBlob: AuthenticationExtensionsLargeBlobInputsJSON?
    /// `credentialProtectionPolicy` (CTAP 2.1 §12.1, "Credential Protection"): one of
    /// `CredentialProtectionPolicy`'s values; kept as text so that the client, not the decoder,
    /// refuses an unknown one.
    public var credentialProtectionPolicy: String?
    /// `enforceCredentialProtectionPolicy` (CTAP 2.1 §12.1): fail rather than create a credential
    /// less protected than asked.
    public var enforceCredentialProtectionPolicy: Bool?
    /// `credBlob` (CTAP 2.1 §12.2): a small blob stored with the credential at creation.
    @Base64URLEncoded public var credBlob: [UInt8]?
    /// `getCredBlob` (CTAP 2.1 §12.2): return the credential's blob with the assertion.
    public var getCredBlob: Bool?
    /// `hmacCreateSecret` (CTAP 2.1 §12.5): create the credential with an hmac-secret.
    public var hmacCreateSecret: Bool?
}

/// CredentialProtectionPolicy (CTAP 2.1 §12.1): the client-side names of credProtect's levels.
public enum CredentialProtectionPolicy: String, Sendable, Hashable, CaseIterable, Codable {
    case userVerificationOptional
    case userVerificationOptionalWithCredentialIDList
    case userVerificationRequired
}
