/// AuthenticationResponseJSON (WebAuthn L3 §5.1): a `PublicKeyCredential` from `get()`, as
/// `toJSON()` renders it.
public struct AuthenticationResponseJSON: Sendable, Hashable, Codable {
    /// The credential ID, base64url; must equal `rawId`'s encoding.
    public var id: String
    public var rawId: [UInt8]
    public var response: AuthenticatorAssertionResponseJSON
    public var authenticatorAttachment: AuthenticatorAttachment?
    public var clientExtensionResults: AuthenticationExtensionsClientOutputsJSON
    /// Always `public-key` for WebAuthn credentials.
    public var type: String

    public init(id: String, rawId: [UInt8], response: AuthenticatorAssertionResponseJSON,
                authenticatorAttachment: AuthenticatorAttachment? = nil,
                clientExtensionResults: AuthenticationExtensionsClientOutputsJSON = .init(),
                type: String = "public-key") {
        self.id = id
        self.rawId = rawId
        self.response = response
        self.authenticatorAttachment = authenticatorAttachment
        self.clientExtensionResults = clientExtensionResults
        self.type = type
    }

    /// Assembles a response the way a client does after `authenticatorGetAssertion`
    /// (WebAuthn L3 §5.1.4.1), with `id` derived from the credential ID.
    public init(credentialID: [UInt8], clientDataJSON: [UInt8], authenticatorData: [UInt8], signature: [UInt8],
                userHandle: [UInt8]?, authenticatorAttachment: AuthenticatorAttachment? = nil,
                clientExtensionResults: AuthenticationExtensionsClientOutputsJSON = .init()) {
        self.init(
            id: Base64URL.encode(credentialID),
            rawId: credentialID,
            response: AuthenticatorAssertionResponseJSON(
                clientDataJSON: clientDataJSON, authenticatorData: authenticatorData,
                signature: signature, userHandle: userHandle),
            authenticatorAttachment: authenticatorAttachment,
            clientExtensionResults: clientExtensionResults)
    }

    enum CodingKeys: String, CodingKey { case id, rawId, response, authenticatorAttachment, clientExtensionResults, type }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        id = try c.decode(String.self, forKey: .id)
        rawId = try c.decodeBase64URL(forKey: .rawId)
        response = try c.decode(AuthenticatorAssertionResponseJSON.self, forKey: .response)
        authenticatorAttachment = try c.decodeKnown(AuthenticatorAttachment.self, forKey: .authenticatorAttachment)
        clientExtensionResults = try c.decode(AuthenticationExtensionsClientOutputsJSON.self, forKey: .clientExtensionResults)
        type = try c.decode(String.self, forKey: .type)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        try c.encodeBase64URL(rawId, forKey: .rawId)
        try c.encode(response, forKey: .response)
        try c.encodeRawIfPresent(authenticatorAttachment, forKey: .authenticatorAttachment)
        try c.encode(clientExtensionResults, forKey: .clientExtensionResults)
        try c.encode(type, forKey: .type)
    }
}

/// AuthenticatorAssertionResponseJSON (WebAuthn L3 §5.1).
public struct AuthenticatorAssertionResponseJSON: Sendable, Hashable, Codable {
    public var clientDataJSON: [UInt8]
    public var authenticatorData: [UInt8]
    public var signature: [UInt8]
    /// The user handle, present when the authenticator returned one (always for discoverable credentials).
    public var userHandle: [UInt8]?

    public init(clientDataJSON: [UInt8], authenticatorData: [UInt8], signature: [UInt8], userHandle: [UInt8]?) {
        self.clientDataJSON = clientDataJSON
        self.authenticatorData = authenticatorData
        self.signature = signature
        self.userHandle = userHandle
    }

    enum CodingKeys: String, CodingKey { case clientDataJSON, authenticatorData, signature, userHandle }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        clientDataJSON = try c.decodeBase64URL(forKey: .clientDataJSON)
        authenticatorData = try c.decodeBase64URL(forKey: .authenticatorData)
        signature = try c.decodeBase64URL(forKey: .signature)
        userHandle = try c.decodeBase64URLIfPresent(forKey: .userHandle)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encodeBase64URL(clientDataJSON, forKey: .clientDataJSON)
        try c.encodeBase64URL(authenticatorData, forKey: .authenticatorData)
        try c.encodeBase64URL(signature, forKey: .signature)
        try c.encodeBase64URLIfPresent(userHandle, forKey: .userHandle)
    }
}
