import CTAP

/// Why a CTAP2 command failed, as the host sees it.
public enum CTAP2Error: Error, Sendable, Equatable {
    /// The authenticator answered with a non-success status.
    case status(CTAPStatus)
    /// The message never made the round trip.
    case transport(TransportError)
    /// The authenticator answered with something that is not the command's response.
    case malformedResponse
}

extension CTAP2Error: CustomStringConvertible {
    /// The status's name, or what went wrong on the way.
    public var description: String {
        switch self {
        case .status(let status): return status.description
        case .transport(let error): return "transport: \(error)"
        case .malformedResponse: return "malformed response from the authenticator"
        }
    }
}
