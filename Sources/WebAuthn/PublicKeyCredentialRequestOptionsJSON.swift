import PasskeydMacros

/// PublicKeyCredentialRequestOptionsJSON (WebAuthn L3 §5.1.9): what a relying party sends
/// for `navigator.credentials.get()`, in the form `parseRequestOptionsFromJSON` takes.
@MemberwiseInit
public struct PublicKeyCredentialRequestOptionsJSON: Sendable, Hashable, Codable {
    public var challenge: [UInt8]
    /// Milliseconds; a hint.
    public var timeout: UInt32?
    public var rpId: String?
    /// Empty asks for a discoverable credential.
    public var allowCredentials: [PublicKeyCredentialDescriptorJSON] = []
    /// An unknown value decodes as the default, `preferred`.
    public var userVerification: UserVerificationRequirement = .preferred
    public var hints: [PublicKeyCredentialHint] = []
    public var extensions: AuthenticationExtensionsClientInputsJSON?

    enum CodingKeys: String, CodingKey {
        case challenge, timeout, rpId, allowCredentials, userVerification, hints, extensions
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        challenge = try c.decodeBase64URL(forKey: .challenge)
        timeout = try c.decodeIfPresent(UInt32.self, forKey: .timeout)
        rpId = try c.decodeIfPresent(String.self, forKey: .rpId)
        allowCredentials =
            try c.decodeIfPresent([PublicKeyCredentialDescriptorJSON].self, forKey: .allowCredentials) ?? []
        userVerification = try c.decodeKnown(UserVerificationRequirement.self, forKey: .userVerification) ?? .preferred
        hints = try c.decodeKnownList(PublicKeyCredentialHint.self, forKey: .hints)
        extensions = try c.decodeIfPresent(AuthenticationExtensionsClientInputsJSON.self, forKey: .extensions)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encodeBase64URL(challenge, forKey: .challenge)
        try c.encodeIfPresent(timeout, forKey: .timeout)
        try c.encodeIfPresent(rpId, forKey: .rpId)
        try c.encode(allowCredentials, forKey: .allowCredentials)
        try c.encode(userVerification.rawValue, forKey: .userVerification)
        try c.encodeUnlessEmpty(hints.map(\.rawValue), forKey: .hints)
        try c.encodeIfPresent(extensions, forKey: .extensions)
    }
}
