import CBOR
import PasskeydMacros

/// authenticatorGetAssertion / authenticatorGetNextAssertion response (CTAP 2.1 §6.2.2).
/// Coded by `@CTAPMap`, as `GetAssertionRequest` is: every sign-in's answer is one of these,
/// written by `encode(into:)` without building a `CBORValue` tree.
@CTAPMap @MemberwiseInit
public struct GetAssertionResponse: CTAPStructure, CTAPCommandResponse, Sendable, Hashable {
    enum CodingKeys: Int, CodingKey {
        case credential = 0x01
        case authenticatorData, signature, user, numberOfCredentials, userSelected, largeBlobKey
    }

    public var credential: PublicKeyCredentialDescriptor
    public var authenticatorData: [UInt8]
    public var signature: [UInt8]
    /// Present for discoverable credentials; names only when the user was verified.
    public var user: PublicKeyCredentialUserEntity?
    /// Present on the first response of a discoverable request with more than one account.
    public var numberOfCredentials: Int?
    public var userSelected: Bool?
    /// The credential's largeBlobKey, when the largeBlobKey extension asked for it (CTAP 2.1 §12.3).
    public var largeBlobKey: [UInt8]?

}
