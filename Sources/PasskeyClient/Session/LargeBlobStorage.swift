import CBOR
import CTAP
import CompressNIO
import NIOCore

/// What a platform keeps in the large-blob array (CTAP 2.1 §6.10.3; WebAuthn L3 §10.1.5): one
/// entry per credential, the blob compressed with DEFLATE (RFC 1951, no zlib header) and sealed
/// under the credential's largeBlobKey. Entries this platform cannot open stay as they are.
extension SerializedLargeBlobArray {
    /// The blob stored under `key`, uncompressed; nil when no entry opens with it.
    public func blob(for key: [UInt8]) -> [UInt8]? {
        for entry in entries ?? [] {
            guard let blob = try? LargeBlob(cbor: entry), let compressed = blob.open(key: key),
                let origSize = blob.origSize
            else { continue }
            return LargeBlobCompression.inflate(compressed, size: origSize)
        }
        return nil
    }

    /// The array with `blob` stored under `key` in place of any blob there was (nil: removed).
    public func setting(_ blob: [UInt8]?, for key: [UInt8]) throws(CTAP2Error) -> SerializedLargeBlobArray {
        var kept = (entries ?? []).filter { entry in
            guard let stored = try? LargeBlob(cbor: entry) else { return true }
            return stored.open(key: key) == nil
        }
        if let blob {
            do {
                kept.append(
                    try LargeBlob(sealing: LargeBlobCompression.deflate(blob), originalSize: blob.count, key: key).cbor)
            } catch {
                throw .status(error)
            }
        }
        return SerializedLargeBlobArray(entries: kept)
    }
}

/// Raw DEFLATE (RFC 1951), as §6.10.3 stores blobs; CompressNIO's zlib binding (docs/client.md says why).
public enum LargeBlobCompression {
    /// Raw DEFLATE of `bytes`, as §6.10.3 stores a blob before encrypting it.
    public static func deflate(_ bytes: [UInt8]) -> [UInt8] {
        var buffer = ByteBuffer(bytes: bytes)
        // zlib fails only on an invalid configuration or an output buffer it sized itself.
        guard let compressed = try? buffer.compress(with: .deflate()) else {
            preconditionFailure("DEFLATE of \(bytes.count) bytes failed")
        }
        return Array(buffer: compressed)
    }

    /// Nil when `compressed` is not DEFLATE data of exactly `size` bytes.
    public static func inflate(_ compressed: [UInt8], size: Int) -> [UInt8]? {
        var buffer = ByteBuffer(bytes: compressed)
        guard let plain = try? buffer.decompress(with: .deflate(), maxSize: max(size, 1)), plain.readableBytes == size
        else { return nil }
        return Array(buffer: plain)
    }
}
