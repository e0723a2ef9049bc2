import CTAP

/// PublicKeyCredentialParameters (WebAuthn L3 §5.3) in JSON: a credential type and a COSE algorithm.
public struct PublicKeyCredentialParametersJSON: Sendable, Hashable, Codable {
    public var type: String
    /// A raw COSEAlgorithmIdentifier: unknown algorithms are skipped by the client, not rejected.
    public var alg: Int

    public init(alg: Int, type: String = "public-key") {
        self.type = type
        self.alg = alg
    }

    public init(_ algorithm: COSEAlgorithm) {
        self.init(alg: algorithm.rawValue)
    }

    public var ctap: PublicKeyCredentialParameters {
        PublicKeyCredentialParameters(alg: alg, type: type)
    }
}
