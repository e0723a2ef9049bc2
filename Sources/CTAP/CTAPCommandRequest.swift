import CBOR

/// The request of one authenticator command, bound to the command's code and to the type of
/// its answer (CTAP 2.1 §6): what a platform sends (`CTAP2Session.call`), what the
/// authenticator parses before the command's steps run, and what the request fuzz target reads.
/// A new command is a new conforming type and one line in `CTAPCommand.requestType`.
public protocol CTAPCommandRequest: Sendable, Equatable {
    /// What a successful answer carries after its status byte.
    associatedtype Response: CTAPCommandResponse
    /// The code a platform sends the request under.
    static var command: CTAPCommand { get }
    /// Parses the parameter bytes after the command byte, with the statuses of CTAP 2.1 §8.
    init(parameters: [UInt8]) throws(CTAPStatus)
    /// The parameters a platform sends; nil for a command that takes none.
    var commandParameters: CBORValue? { get }
}

extension CTAPCommandRequest where Self: CBORRepresentable {
    /// One well-formed CBOR item (CTAP 2.1 §8), then the structure.
    public init(parameters: [UInt8]) throws(CTAPStatus) {
        try self.init(cbor: CBORValue(parameters: parameters))
    }

    public var commandParameters: CBORValue? { cbor }
}

extension CBORValue {
    /// A command's parameters: one well-formed CBOR item, else `CTAP2_ERR_INVALID_CBOR` (CTAP 2.1 §8).
    public init(parameters bytes: [UInt8]) throws(CTAPStatus) {
        do { self = try CBORDecoder.decode(bytes) } catch { throw .invalidCBOR }
    }
}

/// The body of a successful answer (CTAP 2.1 §8.1: status byte, then the response map if any).
public protocol CTAPCommandResponse: Sendable, Equatable {
    /// Reads the body that followed the success status; nil when there was none.
    init(body: CBORValue?) throws(CTAPStatus)
    /// Writes the body after the success status byte; nothing for an answer that is only its status.
    func encode(into writer: inout CBORWriter)
}

extension CTAPCommandResponse where Self: CBORRepresentable {
    /// A response map must be there.
    public init(body: CBORValue?) throws(CTAPStatus) {
        guard let body else { throw .missingParameter }
        try self.init(cbor: body)
    }
}

/// A response map some subcommands leave out (clientPIN setPIN, credentialManagement deleteCredential, …).
extension Optional: CTAPCommandResponse where Wrapped: CTAPCommandResponse {
    public init(body: CBORValue?) throws(CTAPStatus) {
        self = try body.map { body throws(CTAPStatus) in try Wrapped(body: body) }
    }

    public func encode(into writer: inout CBORWriter) { self?.encode(into: &writer) }
}

/// The answer of a command that answers only its status (reset, selection, authenticatorConfig).
public struct StatusOnly: CTAPCommandResponse, Hashable {
    public init() {}
    /// A body, if a device sends one, says nothing the status did not.
    public init(body: CBORValue?) {}
    public func encode(into writer: inout CBORWriter) {}
}

/// A request of a command that takes no parameters (getInfo, getNextAssertion, reset, selection):
/// parameter bytes sent anyway are ignored, as the authenticator always has.
public protocol ParameterlessRequest: CTAPCommandRequest {
    init()
}

extension ParameterlessRequest {
    public init(parameters: [UInt8]) { self.init() }
    public var commandParameters: CBORValue? { nil }
}

/// The parameters of one of passkeyd's authenticated vendor commands, naming its code and answer.
public protocol VendorCommandParameters: CTAPStructure, Sendable, Hashable {
    associatedtype Response: CTAPCommandResponse
    static var command: CTAPCommand { get }
}

extension AuthenticatedVendorRequest: CTAPCommandRequest where Parameters: VendorCommandParameters {
    public typealias Response = Parameters.Response
    public static var command: CTAPCommand { Parameters.command }
    public var commandParameters: CBORValue? { cbor }
}
