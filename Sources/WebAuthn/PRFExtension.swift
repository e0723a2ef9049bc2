/// AuthenticationExtensionsPRFValues (WebAuthn L3 §10.1.4), base64url in JSON.
public struct AuthenticationExtensionsPRFValuesJSON: Sendable, Hashable, Codable {
    @Base64URLEncoded public var first: [UInt8]
    @Base64URLEncoded public var second: [UInt8]?

    public init(first: [UInt8], second: [UInt8]? = nil) {
        self.first = first
        self.second = second
    }
}

/// AuthenticationExtensionsPRFInputs (WebAuthn L3 §10.1.4): values to evaluate, for any
/// credential or per credential ID (base64url keys).
public struct AuthenticationExtensionsPRFInputsJSON: Sendable, Hashable, Codable {
    public var eval: AuthenticationExtensionsPRFValuesJSON?
    public var evalByCredential: [String: AuthenticationExtensionsPRFValuesJSON]?

    public init(
        eval: AuthenticationExtensionsPRFValuesJSON? = nil,
        evalByCredential: [String: AuthenticationExtensionsPRFValuesJSON]? = nil
    ) {
        self.eval = eval
        self.evalByCredential = evalByCredential
    }
}

/// AuthenticationExtensionsPRFOutputs (WebAuthn L3 §10.1.4).
public struct AuthenticationExtensionsPRFOutputsJSON: Sendable, Hashable, Codable {
    /// On registration: whether the credential can evaluate the PRF.
    public var enabled: Bool?
    public var results: AuthenticationExtensionsPRFValuesJSON?

    public init(enabled: Bool? = nil, results: AuthenticationExtensionsPRFValuesJSON? = nil) {
        self.enabled = enabled
        self.results = results
    }
}
