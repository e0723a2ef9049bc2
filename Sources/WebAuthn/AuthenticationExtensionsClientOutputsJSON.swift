import PasskeydMacros

/// AuthenticationExtensionsClientOutputsJSON (WebAuthn L3 §5.1, §9): the client extension
/// outputs passkeyd produces or reads; outputs of other extensions are ignored on decoding.
@MemberwiseInit
public struct AuthenticationExtensionsClientOutputsJSON: Sendable, Hashable, Codable {
    /// CredentialPropertiesOutput (WebAuthn L3 §10.1.3).
    @MemberwiseInit
    public struct CredentialProperties: Sendable, Hashable, Codable {
        /// Resident key credential property: whether the credential is client-side discoverable.
        public var rk: Bool?
    }

    public var credProps: CredentialProperties?
    public var prf: AuthenticationExtensionsPRFOutputsJSON?
    public var largeBlob: AuthenticationExtensionsLargeBlobOutputsJSON?
    /// `credBlob` at registration (CTAP 2.1 §12.2): whether the authenticator stored the blob.
    public var credBlob: Bool?
    /// `getCredBlob` at authentication (CTAP 2.1 §12.2): the credential's blob, empty when it has none.
    @Base64URLEncoded public var getCredBlob: [UInt8]?
    /// `hmacCreateSecret` at registration (CTAP 2.1 §12.5): whether the credential has an hmac-secret.
    public var hmacCreateSecret: Bool?
}
