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
}
