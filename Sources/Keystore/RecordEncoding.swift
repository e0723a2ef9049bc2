import Foundation

/// How a record's plaintext encodes its value, named by the version byte that opens it
/// (docs/keystore.md). Every version stays readable; only the current one is written, so a
/// record moves to it the next time it is saved.
enum RecordEncoding: UInt8, Sendable, CaseIterable {
    /// JSON of the `Codable` value, byte strings as arrays of numbers: written until the
    /// binary encoding, whose decoding costs a tenth (docs/benchmarks.md).
    case json = 1
    /// CBOR of the `Codable` value (`RecordEncoder`): byte strings as byte strings.
    case cbor = 2

    static let current = RecordEncoding.cbor

    func encode(_ value: some Encodable) throws -> [UInt8] {
        switch self {
        case .json: return Array(try JSONEncoder().encode(value))
        case .cbor: return try RecordEncoder.encode(value)
        }
    }

    func decode<T: Decodable>(_ type: T.Type, from bytes: [UInt8]) throws -> T {
        switch self {
        case .json: return try JSONDecoder().decode(T.self, from: Data(bytes))
        case .cbor: return try RecordDecoder.decode(T.self, from: bytes)
        }
    }
}
