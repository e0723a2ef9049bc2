/// AuthenticationExtensionsPRFValues (WebAuthn L3 §10.1.4), base64url in JSON.
public struct AuthenticationExtensionsPRFValuesJSON: Sendable, Hashable, Codable {
    public var first: [UInt8]
    public var second: [UInt8]?

    public init(first: [UInt8], second: [UInt8]? = nil) {
        self.first = first
        self.second = second
    }

    enum CodingKeys: String, CodingKey { case first, second }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        first = try c.decodeBase64URL(forKey: .first)
        second = try c.decodeBase64URLIfPresent(forKey: .second)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encodeBase64URL(first, forKey: .first)
        try c.encodeBase64URLIfPresent(second, forKey: .second)
    }
}

/// AuthenticationExtensionsPRFInputs (WebAuthn L3 §10.1.4): values to evaluate, for any
/// credential or per credential ID (base64url keys).
public struct AuthenticationExtensionsPRFInputsJSON: Sendable, Hashable, Codable {
    public var eval: AuthenticationExtensionsPRFValuesJSON?
    public var evalByCredential: [String: AuthenticationExtensionsPRFValuesJSON]?

    public init(eval: AuthenticationExtensionsPRFValuesJSON? = nil, evalByCredential: [String: AuthenticationExtensionsPRFValuesJSON]? = nil) {
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
