import CTAP
import Crypto

/// authenticatorLargeBlobs (CTAP 2.1 §6.10.2) from the platform's side: the whole serialized
/// large-blob array, read and written in fragments of maxFragmentLength.
public struct LargeBlobsSession: Sendable {
    /// The session the fragments are read and written on.
    public let session: CTAP2Session
    /// maxSerializedLargeBlobArray: the longest array the authenticator stores.
    public let capacity: Int
    /// maxFragmentLength = maxMsgSize − 64 (§6.10.2).
    let fragmentLength: Int

    /// Nil when the authenticator does not offer largeBlobs (getInfo option, §6.4).
    public init?(session: CTAP2Session, info: GetInfoResponse) {
        guard info.options["largeBlobs"] == true, let capacity = info.maxSerializedLargeBlobArray else { return nil }
        self.session = session
        self.capacity = capacity
        fragmentLength = (info.maxMsgSize ?? 1024) - 64
    }

    /// The stored array. One whose hash does not match is read as the initial empty array, as
    /// §6.10.3 tells platforms to.
    public func read() async throws(CTAP2Error) -> SerializedLargeBlobArray {
        var bytes: [UInt8] = []
        while true {
            let request = LargeBlobsRequest(get: fragmentLength, offset: bytes.count)
            let part = try await session.request(.largeBlobs, request.cbor, as: LargeBlobsResponse.init(cbor:)).config
            bytes += part
            if part.count < fragmentLength { break }
        }
        return (try? SerializedLargeBlobArray(validating: bytes)) ?? .initial
    }

    /// Replaces the stored array. `token` needs the `lbw` permission when the authenticator is
    /// protected by user verification (§6.10.2 step 4.5); without one the write is unauthenticated.
    public func write(_ array: SerializedLargeBlobArray, token: PinUvAuthToken?) async throws(CTAP2Error) {
        guard array.bytes.count <= capacity else { throw .status(.largeBlobStorageFull) }
        var offset = 0
        repeat {
            let fragment = Array(array.bytes[offset..<min(array.bytes.count, offset + fragmentLength)])
            var request = LargeBlobsRequest(
                set: fragment, offset: offset, length: offset == 0 ? array.bytes.count : nil)
            if let token {
                let message = LargeBlobsRequest.authenticatedMessage(
                    offset: offset, fragmentHash: Array(SHA256.hash(data: fragment)))
                request.pinUvAuthParam = token.authenticate(message)
                request.pinUvAuthProtocol = token.protocolVersion
            }
            _ = try await session.send(.largeBlobs, request.cbor)
            offset += fragment.count
        } while offset < array.bytes.count
    }
}
