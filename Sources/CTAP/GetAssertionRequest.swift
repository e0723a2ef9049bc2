import CBOR
import PasskeydMacros

/// authenticatorGetAssertion parameters (CTAP 2.1 §6.2).
///
/// Coded by `@CTAPMap` rather than `Codable` over `CBORValue`: every sign-in sends this request,
/// and the generic path (a container per member, dynamic casts, metadata lookups) cost more than
/// the rest of its parsing (`CTAPMapCodingTests` holds both paths to the same answers).
@CTAPMap @MemberwiseInit
public struct GetAssertionRequest: CTAPStructure, Sendable, Hashable {
    enum CodingKeys: Int, CodingKey {
        case rpID = 0x01
        case clientDataHash, allowList, extensions, options, pinUvAuthParam, pinUvAuthProtocol
    }

    public var rpID: String
    public var clientDataHash: [UInt8]
    @Defaulted public var allowList: [PublicKeyCredentialDescriptor]
    /// Extension inputs (CTAP 2.1 §12); the authenticator reads the ones it supports.
    @Defaulted public var extensions: ExtensionMap
    @Defaulted public var options: RequestOptions
    public var pinUvAuthParam: [UInt8]?
    @Unsigned public var pinUvAuthProtocol: Int?

    public func validate() throws(CTAPStatus) { try ClientDataHash.validate(clientDataHash) }
}

/// The command this request is sent under, and its answer (CTAP 2.1 §6).
extension GetAssertionRequest: CTAPCommandRequest {
    public typealias Response = GetAssertionResponse
    public static let command = CTAPCommand.getAssertion
}
