import PasskeydMacros

/// PublicKeyCredentialCreationOptionsJSON (WebAuthn L3 §5.1.8): what a relying party sends
/// for `navigator.credentials.create()`, in the form `parseCreationOptionsFromJSON` takes.
@MemberwiseInit
public struct PublicKeyCredentialCreationOptionsJSON: Sendable, Hashable, Codable {
    public var rp: PublicKeyCredentialRpEntityJSON
    public var user: PublicKeyCredentialUserEntityJSON
    public var challenge: [UInt8]
    public var pubKeyCredParams: [PublicKeyCredentialParametersJSON]
    /// Milliseconds; a hint.
    public var timeout: UInt32?
    public var excludeCredentials: [PublicKeyCredentialDescriptorJSON] = []
    public var authenticatorSelection: AuthenticatorSelectionCriteria?
    /// Unknown hints are dropped on decoding.
    public var hints: [PublicKeyCredentialHint] = []
    /// An unknown value decodes as the default, `none`.
    public var attestation: AttestationConveyancePreference = .none
    public var attestationFormats: [String] = []
    public var extensions: AuthenticationExtensionsClientInputsJSON?

    enum CodingKeys: String, CodingKey {
        case rp, user, challenge, pubKeyCredParams, timeout, excludeCredentials, authenticatorSelection
        case hints, attestation, attestationFormats, extensions
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        rp = try c.decode(PublicKeyCredentialRpEntityJSON.self, forKey: .rp)
        user = try c.decode(PublicKeyCredentialUserEntityJSON.self, forKey: .user)
        challenge = try c.decodeBase64URL(forKey: .challenge)
        pubKeyCredParams = try c.decode([PublicKeyCredentialParametersJSON].self, forKey: .pubKeyCredParams)
        timeout = try c.decodeIfPresent(UInt32.self, forKey: .timeout)
        excludeCredentials =
            try c.decodeIfPresent([PublicKeyCredentialDescriptorJSON].self, forKey: .excludeCredentials) ?? []
        authenticatorSelection = try c.decodeIfPresent(
            AuthenticatorSelectionCriteria.self, forKey: .authenticatorSelection)
        hints = try c.decodeKnownList(PublicKeyCredentialHint.self, forKey: .hints)
        attestation = try c.decodeKnown(AttestationConveyancePreference.self, forKey: .attestation) ?? .none
        attestationFormats = try c.decodeIfPresent([String].self, forKey: .attestationFormats) ?? []
        extensions = try c.decodeIfPresent(AuthenticationExtensionsClientInputsJSON.self, forKey: .extensions)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(rp, forKey: .rp)
        try c.encode(user, forKey: .user)
        try c.encodeBase64URL(challenge, forKey: .challenge)
        try c.encode(pubKeyCredParams, forKey: .pubKeyCredParams)
        try c.encodeIfPresent(timeout, forKey: .timeout)
        try c.encode(excludeCredentials, forKey: .excludeCredentials)
        try c.encodeIfPresent(authenticatorSelection, forKey: .authenticatorSelection)
        try c.encodeUnlessEmpty(hints.map(\.rawValue), forKey: .hints)
        try c.encode(attestation.rawValue, forKey: .attestation)
        try c.encodeUnlessEmpty(attestationFormats, forKey: .attestationFormats)
        try c.encodeIfPresent(extensions, forKey: .extensions)
    }
}
