import Crypto
import Foundation

/// One registration as the record log holds it (docs/keystore.md, "The record log"): the
/// credential's row, its place in the keystore's sequence of writes, and a check.
///
/// Layout, integers little-endian:
/// `bodyLength u32 ‖ sequence u64 ‖ previous u64 ‖ credentialIDHash ‖ rpIDHash ‖ userHandleHash ‖ sealed ‖ check`,
/// where the body is the three 32-byte hashes and the sealed record, and `check` is the first
/// 16 bytes of SHA-256 over everything before it. The check tells a whole entry from a torn
/// one or from zeros; the record's own tag (its associated data binds the three hashes)
/// still vouches for the contents when the entry is replayed.
struct RecordLogEntry: Sendable, Equatable {
    /// This write's number: each logged save and each commit into SQLite takes the next one.
    var sequence: UInt64
    /// The number taken just before this one, by a logged save or by a commit into SQLite:
    /// replay stops where the chain breaks, so an entry written after a commit that a crash
    /// took back is not applied without it (a crash keeps a prefix of the writes).
    var previous: UInt64
    var row: CredentialRow

    static let hashSize = 32
    static let headerSize = 4 + 8 + 8
    static let checkSize = 16
    /// The bytes of the smallest possible entry (an empty sealed record).
    static let minimumSize = headerSize + 3 * hashSize + checkSize

    var size: Int { Self.size(of: row) }

    /// The bytes `row`'s entry takes in the log.
    static func size(of row: CredentialRow) -> Int { minimumSize + row.sealed.count }

    var encoded: [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(size)
        Self.append(UInt32(3 * Self.hashSize + row.sealed.count), to: &bytes)
        Self.append(sequence, to: &bytes)
        Self.append(previous, to: &bytes)
        bytes += row.credentialIDHash
        bytes += row.rpIDHash
        bytes += row.userHandleHash
        bytes += row.sealed
        bytes += Self.check(bytes[...])
        return bytes
    }

    /// The whole entries at the start of `region` of `bytes` (all of it by default), in order,
    /// up to the first that is torn, damaged or absent (zeros).
    static func entries(in bytes: [UInt8], region: Range<Int>? = nil) -> [RecordLogEntry] {
        let region = region ?? bytes.indices
        var entries: [RecordLogEntry] = []
        var offset = region.lowerBound
        while let entry = entry(in: bytes, at: offset, end: region.upperBound) {
            entries.append(entry)
            offset += entry.size
        }
        return entries
    }

    /// What replay applies over a store whose last commit took `applied`: entries at or
    /// below it are in the store already (or were superseded); the rest must continue the
    /// chain from it, one after another, and replay ends where one does not.
    static func replayable(_ entries: [RecordLogEntry], after applied: UInt64) -> [RecordLogEntry] {
        var chain: [RecordLogEntry] = []
        var last = applied
        for entry in entries where entry.sequence > applied {
            guard entry.previous == last else { break }
            chain.append(entry)
            last = entry.sequence
        }
        return chain
    }

    private static func entry(in bytes: [UInt8], at offset: Int, end regionEnd: Int) -> RecordLogEntry? {
        guard regionEnd - offset >= minimumSize else { return nil }
        let bodyLength = Int(integer(UInt32.self, in: bytes, at: offset))
        let end = offset + headerSize + bodyLength
        guard bodyLength >= 3 * hashSize, bodyLength <= regionEnd - offset - headerSize - checkSize,
            bytes[end..<end + checkSize].elementsEqual(check(bytes[offset..<end]))
        else { return nil }
        var field = offset + headerSize
        func take(_ count: Int) -> Data {
            defer { field += count }
            return Data(bytes[field..<field + count])
        }
        let row = CredentialRow(
            credentialIDHash: take(hashSize), rpIDHash: take(hashSize), userHandleHash: take(hashSize),
            sealed: take(end - field))
        return RecordLogEntry(
            sequence: integer(UInt64.self, in: bytes, at: offset + 4),
            previous: integer(UInt64.self, in: bytes, at: offset + 12), row: row)
    }

    private static func check(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
        Array(SHA256.hash(data: bytes).prefix(checkSize))
    }

    private static func append<T: FixedWidthInteger>(_ value: T, to bytes: inout [UInt8]) {
        withUnsafeBytes(of: value.littleEndian) { bytes += $0 }
    }

    private static func integer<T: FixedWidthInteger>(_ type: T.Type, in bytes: [UInt8], at offset: Int) -> T {
        var value = T.zero
        for index in (0..<MemoryLayout<T>.size).reversed() { value = value << 8 | T(bytes[offset + index]) }
        return value
    }
}
