import CBOR
import PasskeydMacros

/// The authenticatorLargeBlobs (0x0C) request parameters (CTAP 2.1 §6.10.2): a read of
/// `get` bytes, or a fragment `set` of a new serialized large-blob array, both at `offset`.
@MemberwiseInit
public struct LargeBlobsRequest: CTAPStructure, Sendable, Hashable {
    enum CodingKeys: Int, CodingKey {
        case get = 0x01
        case set, offset, length, pinUvAuthParam, pinUvAuthProtocol
    }

    /// How many bytes to read.
    @Unsigned public var get: Int?
    /// A fragment to write.
    public var set: [UInt8]?
    /// Where the read or the fragment starts. Parsed as optional: its absence is
    /// `CTAP1_ERR_INVALID_PARAMETER` (§6.10.2 step 1), not a missing parameter.
    @Unsigned public var offset: Int?
    /// The whole new array's length, with the first fragment only.
    @Unsigned public var length: Int?
    public var pinUvAuthParam: [UInt8]?
    @Unsigned public var pinUvAuthProtocol: Int?

    /// The message a write's pinUvAuthParam authenticates (§6.10.2 step 4.5.3):
    /// 32×0xff ‖ h'0c00' ‖ uint32LittleEndian(offset) ‖ SHA-256(set).
    public static func authenticatedMessage(offset: Int, fragmentHash: [UInt8]) -> [UInt8] {
        let offsetBytes = (0..<4).map { UInt8(truncatingIfNeeded: UInt32(truncatingIfNeeded: offset) >> (8 * $0)) }
        return [UInt8](repeating: 0xFF, count: 32) + [0x0C, 0x00] + offsetBytes + fragmentHash
    }
}

/// The command this request is sent under, and its answer (CTAP 2.1 §6).
extension LargeBlobsRequest: CTAPCommandRequest {
    public typealias Response = LargeBlobsResponse?
    public static let command = CTAPCommand.largeBlobs
}
