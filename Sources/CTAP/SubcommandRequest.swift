import CBOR

/// A command whose pinUvAuthParam authenticates its subcommand and `subCommandParams` as the
/// platform encoded them (authenticatorBioEnrollment §6.7, authenticatorCredentialManagement
/// §6.8, authenticatorConfig §6.11): the decoder accepts non-shortest encodings, so a request
/// parsed from the wire keeps the parameters' bytes, and one built in code uses the canonical ones.
public protocol SubcommandRequest: CTAPCommandRequest, CBORRepresentable {
    associatedtype Parameters: CBORRepresentable
    /// The key of `subCommandParams` in the request map.
    static var parametersKey: Int { get }
    var subCommandParams: Parameters? { get }
    /// The `subCommandParams` bytes as received; empty for a request built in code.
    var receivedParams: ReceivedEncoding { get set }
    /// What the message starts with before the parameters (the command's own rule).
    var authenticatedPrefix: [UInt8] { get }
}

extension SubcommandRequest {
    /// The message pinUvAuthParam is computed over: the prefix, then the parameters.
    public var authenticatedMessage: [UInt8] {
        authenticatedPrefix + (receivedParams.bytes ?? subCommandParams?.cbor.encoded ?? [])
    }

    /// Parses the command's parameter bytes, keeping the `subCommandParams` item as sent.
    public init(parameters bytes: [UInt8]) throws(CTAPStatus) {
        let (value, params) = try ReceivedEncoding.decode(bytes, keeping: Self.parametersKey)
        try self.init(cbor: value)
        receivedParams = params
    }
}
