import PasskeydMacros

/// AuthenticationResponseJSON (WebAuthn L3 §5.1): a `PublicKeyCredential` from `get()`, as
/// `toJSON()` renders it.
public typealias AuthenticationResponseJSON = PublicKeyCredentialJSON<AuthenticatorAssertionResponseJSON>

extension PublicKeyCredentialJSON where Response == AuthenticatorAssertionResponseJSON {
    /// Assembles a response the way a client does after `authenticatorGetAssertion`
    /// (WebAuthn L3 §5.1.4.1), with `id` derived from the credential ID.
    public init(
        credentialID: [UInt8], clientDataJSON: [UInt8], authenticatorData: [UInt8], signature: [UInt8],
        userHandle: [UInt8]?, authenticatorAttachment: AuthenticatorAttachment? = nil,
        clientExtensionResults: AuthenticationExtensionsClientOutputsJSON = .init()
    ) {
        self.init(
            credentialID: credentialID,
            response: AuthenticatorAssertionResponseJSON(
                clientDataJSON: clientDataJSON, authenticatorData: authenticatorData,
                signature: signature, userHandle: userHandle),
            authenticatorAttachment: authenticatorAttachment,
            clientExtensionResults: clientExtensionResults)
    }
}

/// AuthenticatorAssertionResponseJSON (WebAuthn L3 §5.1).
@MemberwiseInit
public struct AuthenticatorAssertionResponseJSON: AuthenticatorResponseJSON {
    @Base64URLEncoded public var clientDataJSON: [UInt8]
    @Base64URLEncoded public var authenticatorData: [UInt8]
    @Base64URLEncoded public var signature: [UInt8]
    /// The user handle, present when the authenticator returned one (always for discoverable credentials).
    @Base64URLEncoded public var userHandle: [UInt8]?
}
