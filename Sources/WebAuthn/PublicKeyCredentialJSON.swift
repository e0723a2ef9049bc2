import PasskeydMacros

/// The `response` member of a `PublicKeyCredentialJSON`: an AuthenticatorResponse
/// (WebAuthn L3 §5.2) in its JSON form.
public protocol AuthenticatorResponseJSON: Sendable, Hashable, Codable {
    var clientDataJSON: [UInt8] { get }
}

/// A `PublicKeyCredential` as `toJSON()` renders it (WebAuthn L3 §5.1): `RegistrationResponseJSON`
/// from `create()`, `AuthenticationResponseJSON` from `get()`. An unknown
/// `authenticatorAttachment` decodes as absent (§2.1.1); unknown client extension outputs are ignored.
@MemberwiseInit
public struct PublicKeyCredentialJSON<Response: AuthenticatorResponseJSON>: Sendable, Hashable, Codable {
    /// The credential ID, base64url; must equal `rawId`'s encoding.
    public var id: String
    @Base64URLEncoded public var rawId: [UInt8]
    public var response: Response
    @KnownOrAbsent public var authenticatorAttachment: AuthenticatorAttachment?
    public var clientExtensionResults: AuthenticationExtensionsClientOutputsJSON = .init()
    /// Always `public-key` for WebAuthn credentials.
    public var type = "public-key"

    /// A credential as a client returns it (WebAuthn L3 §5.1.3, §5.1.4.1): `id` is the
    /// credential ID's base64url encoding.
    public init(
        credentialID: [UInt8], response: Response,
        authenticatorAttachment: AuthenticatorAttachment? = nil,
        clientExtensionResults: AuthenticationExtensionsClientOutputsJSON = .init()
    ) {
        self.init(
            id: Base64URL.encode(credentialID), rawId: credentialID, response: response,
            authenticatorAttachment: authenticatorAttachment, clientExtensionResults: clientExtensionResults)
    }
}
