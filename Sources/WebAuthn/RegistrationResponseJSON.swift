import CTAP

/// RegistrationResponseJSON (WebAuthn L3 §5.1): a `PublicKeyCredential` from `create()`, as
/// `toJSON()` renders it.
public struct RegistrationResponseJSON: Sendable, Hashable, Codable {
    /// The credential ID, base64url; must equal `rawId`'s encoding.
    public var id: String
    public var rawId: [UInt8]
    public var response: AuthenticatorAttestationResponseJSON
    public var authenticatorAttachment: AuthenticatorAttachment?
    public var clientExtensionResults: AuthenticationExtensionsClientOutputsJSON
    /// Always `public-key` for WebAuthn credentials.
    public var type: String

    public init(id: String, rawId: [UInt8], response: AuthenticatorAttestationResponseJSON,
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

    /// Assembles a response the way a client does after `authenticatorMakeCredential`
    /// (WebAuthn L3 §5.1.3): the credential ID, authenticator data, public key and algorithm are
    /// read from the attestation object.
    public init(clientDataJSON: [UInt8], attestationObject: AttestationObject, transports: [String],
                authenticatorAttachment: AuthenticatorAttachment? = nil,
                clientExtensionResults: AuthenticationExtensionsClientOutputsJSON = .init()) throws(CTAPStatus) {
        let authData = try AuthenticatorData(bytes: attestationObject.authenticatorData)
        guard let attested = authData.attestedCredentialData else { throw .invalidParameter }
        self.init(
            id: Base64URL.encode(attested.credentialID),
            rawId: attested.credentialID,
            response: AuthenticatorAttestationResponseJSON(
                clientDataJSON: clientDataJSON,
                authenticatorData: attestationObject.authenticatorData,
                transports: transports,
                publicKey: attested.publicKey.subjectPublicKeyInfo,
                publicKeyAlgorithm: attested.publicKey.algorithm.rawValue,
                attestationObject: attestationObject.cbor.encoded),
            authenticatorAttachment: authenticatorAttachment,
            clientExtensionResults: clientExtensionResults)
    }

    enum CodingKeys: String, CodingKey { case id, rawId, response, authenticatorAttachment, clientExtensionResults, type }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        id = try c.decode(String.self, forKey: .id)
        rawId = try c.decodeBase64URL(forKey: .rawId)
        response = try c.decode(AuthenticatorAttestationResponseJSON.self, forKey: .response)
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

/// AuthenticatorAttestationResponseJSON (WebAuthn L3 §5.1).
public struct AuthenticatorAttestationResponseJSON: Sendable, Hashable, Codable {
    public var clientDataJSON: [UInt8]
    public var authenticatorData: [UInt8]
    /// Kept as strings: unknown transports must survive (WebAuthn L3 §5.8.4).
    public var transports: [String]
    /// The credential public key as a DER SubjectPublicKeyInfo, when the client can express it.
    public var publicKey: [UInt8]?
    /// The credential's COSEAlgorithmIdentifier.
    public var publicKeyAlgorithm: Int
    /// The CBOR attestation object (WebAuthn L3 §6.5.4).
    public var attestationObject: [UInt8]

    public init(clientDataJSON: [UInt8], authenticatorData: [UInt8], transports: [String],
                publicKey: [UInt8]?, publicKeyAlgorithm: Int, attestationObject: [UInt8]) {
        self.clientDataJSON = clientDataJSON
        self.authenticatorData = authenticatorData
        self.transports = transports
        self.publicKey = publicKey
        self.publicKeyAlgorithm = publicKeyAlgorithm
        self.attestationObject = attestationObject
    }

    enum CodingKeys: String, CodingKey {
        case clientDataJSON, authenticatorData, transports, publicKey, publicKeyAlgorithm, attestationObject
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        clientDataJSON = try c.decodeBase64URL(forKey: .clientDataJSON)
        authenticatorData = try c.decodeBase64URL(forKey: .authenticatorData)
        transports = try c.decode([String].self, forKey: .transports)
        publicKey = try c.decodeBase64URLIfPresent(forKey: .publicKey)
        publicKeyAlgorithm = try c.decode(Int.self, forKey: .publicKeyAlgorithm)
        attestationObject = try c.decodeBase64URL(forKey: .attestationObject)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encodeBase64URL(clientDataJSON, forKey: .clientDataJSON)
        try c.encodeBase64URL(authenticatorData, forKey: .authenticatorData)
        try c.encode(transports, forKey: .transports)
        try c.encodeBase64URLIfPresent(publicKey, forKey: .publicKey)
        try c.encode(publicKeyAlgorithm, forKey: .publicKeyAlgorithm)
        try c.encodeBase64URL(attestationObject, forKey: .attestationObject)
    }
}
