import CBOR
import PasskeydMacros

/// A request of one of passkeyd's vendor CTAP2 commands (CTAP 2.1 §6: 0x40–0xBF are the
/// vendor's): parameters, and a pinUvAuthParam over `command || parameters` made with a
/// pinUvAuthToken that holds the `cm` permission, as credential management's (§6.8.1).
///
/// Like `CredentialManagementRequest`, a request parsed from the wire keeps the parameter bytes
/// as received, since the MAC covers those exact bytes.
@MemberwiseInit
public struct AuthenticatedVendorRequest<Parameters: CTAPStructure & Sendable & Hashable>: Sendable, Hashable {
    public var parameters: Parameters
    public var pinUvAuthProtocol: Int?
    public var pinUvAuthParam: [UInt8]?
    private var receivedParameterBytes: [UInt8]? = nil

    /// What pinUvAuthParam authenticates for `command`.
    public func authenticatedMessage(_ command: CTAPCommand) -> [UInt8] {
        [command.rawValue] + (receivedParameterBytes ?? parameters.cbor.encoded)
    }

    /// The request map's keys, the only place they are written.
    enum Key: Int, CodingKey {
        case parameters = 1
        case pinUvAuthProtocol, pinUvAuthParam
    }

    public var cbor: CBORValue {
        .keyed(
            Key.self,
            [
                (.parameters, parameters.cbor), (.pinUvAuthProtocol, pinUvAuthProtocol.map { CBORValue($0) }),
                (.pinUvAuthParam, pinUvAuthParam.map(CBORValue.byteString))
            ])
    }

    public init(parameters bytes: [UInt8]) throws(CTAPStatus) {
        let value: CBORValue
        do { value = try CBORDecoder.decode(bytes) } catch { throw .invalidCBOR }
        let map = try CBORMap(value)
        parameters = try Parameters(cbor: try map.required(Key.parameters) { $0 })
        pinUvAuthProtocol = try map.optional(Key.pinUvAuthProtocol, CBORRead.int)
        pinUvAuthParam = try map.optional(Key.pinUvAuthParam, CBORRead.bytes)
        guard let raw = (try? CBORDecoder.mapValueEncodings(bytes))??[Key.parameters.cborKey] else {
            throw .invalidCBOR
        }
        receivedParameterBytes = raw
    }

    public static func == (a: Self, b: Self) -> Bool {
        a.parameters == b.parameters && a.pinUvAuthProtocol == b.pinUvAuthProtocol
            && a.pinUvAuthParam == b.pinUvAuthParam
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(parameters)
        hasher.combine(pinUvAuthProtocol)
        hasher.combine(pinUvAuthParam)
    }
}
