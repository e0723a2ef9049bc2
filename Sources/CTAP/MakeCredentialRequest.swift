import CBOR
import PasskeydMacros

/// authenticatorMakeCredential parameters (CTAP 2.1 §6.1).
///
/// Coded by `@CTAPMap`, as `GetAssertionRequest` is: every registration sends this request, and
/// the generic `Codable` path costs a container, dynamic casts and metadata lookups per member.
@CTAPMap @MemberwiseInit
public struct MakeCredentialRequest: CTAPStructure, Sendable, Hashable {
    enum CodingKeys: Int, CodingKey {
        case clientDataHash = 0x01
        case rp, user, pubKeyCredParams, excludeList, extensions, options
        case pinUvAuthParam, pinUvAuthProtocol, enterpriseAttestation, attestationFormatsPreference
    }

    public var clientDataHash: [UInt8]
    public var rp: PublicKeyCredentialRpEntity
    public var user: PublicKeyCredentialUserEntity
    public var pubKeyCredParams: [PublicKeyCredentialParameters]
    @Defaulted public var excludeList: [PublicKeyCredentialDescriptor]
    /// Extension inputs (CTAP 2.1 §12); the authenticator reads the ones it supports.
    @Defaulted public var extensions: ExtensionMap
    @Defaulted public var options: RequestOptions
    public var pinUvAuthParam: [UInt8]?
    @Unsigned public var pinUvAuthProtocol: Int?
    public var enterpriseAttestation: Int?
    /// CTAP 2.2 §6.1: attestation formats the platform prefers, most preferred first.
    public var attestationFormatsPreference: [String]?

    public func validate() throws(CTAPStatus) { try ClientDataHash.validate(clientDataHash) }

    /// Whether the `icon` members of `rp` and `user`, where present, are text (a URL in CTAP
    /// 2.0 §5.1 and WebAuthn L1). Later versions dropped the member and ignore it, so the typed
    /// entities do not keep it; a 2.0 device type-checks it from the request's value.
    public static func entityIconsAreText(in value: CBORValue) -> Bool {
        let entities = [CodingKeys.rp, .user].compactMap { value.mapValue?[$0.cborKey]?.mapValue }
        return entities.allSatisfy { entity in entity["icon"].map { $0.textValue != nil } ?? true }
    }
}

/// The command this request is sent under, and its answer (CTAP 2.1 §6).
extension MakeCredentialRequest: CTAPCommandRequest {
    public typealias Response = MakeCredentialResponse
    public static let command = CTAPCommand.makeCredential
}
