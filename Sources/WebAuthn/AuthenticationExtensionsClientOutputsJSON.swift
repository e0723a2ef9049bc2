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
}
