import PasskeydMacros

/// AuthenticationExtensionsPRFValues (WebAuthn L3 §10.1.4), base64url in JSON.
@MemberwiseInit
public struct AuthenticationExtensionsPRFValuesJSON: Sendable, Hashable, Codable {
    @Base64URLEncoded public var first: [UInt8]
    @Base64URLEncoded public var second: [UInt8]?
}

/// AuthenticationExtensionsPRFInputs (WebAuthn L3 §10.1.4): values to evaluate, for any
/// credential or per credential ID (base64url keys).
@MemberwiseInit
public struct AuthenticationExtensionsPRFInputsJSON: Sendable, Hashable, Codable {
    public var eval: AuthenticationExtensionsPRFValuesJSON?
    public var evalByCredential: [String: AuthenticationExtensionsPRFValuesJSON]?
}

/// AuthenticationExtensionsPRFOutputs (WebAuthn L3 §10.1.4).
@MemberwiseInit
public struct AuthenticationExtensionsPRFOutputsJSON: Sendable, Hashable, Codable {
    /// On registration: whether the credential can evaluate the PRF.
    public var enabled: Bool?
    public var results: AuthenticationExtensionsPRFValuesJSON?
}
