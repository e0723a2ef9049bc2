import CBOR
import PasskeydMacros

/// The authenticatorLargeBlobs (0x0C) response (CTAP 2.1 §6.10.2): a read's bytes; a
/// write answers with no map at all.
@MemberwiseInit
public struct LargeBlobsResponse: CTAPStructure, CTAPCommandResponse, Sendable, Hashable {
    enum CodingKeys: Int, CodingKey {
        case config = 0x01
    }

    /// The requested part of the serialized large-blob array.
    public var config: [UInt8]
}
