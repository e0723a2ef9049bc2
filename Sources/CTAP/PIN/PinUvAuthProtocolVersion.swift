import CBOR

/// The PIN/UV auth protocol numbers CTAP 2.1 defines (§6.5.7, §6.5.8), as sent in
/// `pinUvAuthProtocol` and listed in getInfo's `pinUvAuthProtocols`.
public enum PinUvAuthProtocolVersion: Int, Sendable, Hashable, CaseIterable {
    case one = 1
    case two = 2

    /// The implementation of this protocol.
    public var implementation: any PinUvAuthProtocol {
        switch self {
        case .one: return PinUvAuthProtocolOne()
        case .two: return PinUvAuthProtocolTwo()
        }
    }
}

extension PinUvAuthProtocolVersion: CBORMember {
    /// An integer; one this specification does not define is `CTAP1_ERR_INVALID_PARAMETER`.
    public init(cbor: CBORValue) throws(CTAPStatus) {
        guard let version = PinUvAuthProtocolVersion(rawValue: try Int(cbor: cbor)) else { throw .invalidParameter }
        self = version
    }

    public var cbor: CBORValue { CBORValue(rawValue) }
}
