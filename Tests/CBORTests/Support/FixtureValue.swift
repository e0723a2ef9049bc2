import CBOR

/// A CBOR value as the fixture files spell it in JSON:
/// `{"int": "<signed decimal>"}`, `{"bytes": "<hex>"}`, `{"text": "..."}`, `{"bool": b}`,
/// `{"null": true}`, `{"undefined": true}`, `{"array": [...]}`, `{"map": [[k, v], ...]}`.
///
/// Integers are decimal strings because JSON numbers cannot carry 2^64 - 1 or -2^64 exactly.
indirect enum FixtureValue: Decodable, Sendable {
    case int(String)
    case bytes(String)
    case text(String)
    case bool(Bool)
    case null
    case undefined
    case array([FixtureValue])
    case map([[FixtureValue]])

    enum CodingKeys: String, CodingKey {
        case int, bytes, text, bool, null, undefined, array, map
    }

    enum Invalid: Error {
        case noKnownKey
        case integerOutOfRange(String)
        case mapEntryNotAPair
        case duplicateKey(CBORValue)
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        if let n = try container.decodeIfPresent(String.self, forKey: .int) {
            self = .int(n)
        } else if let hex = try container.decodeIfPresent(String.self, forKey: .bytes) {
            self = .bytes(hex)
        } else if let text = try container.decodeIfPresent(String.self, forKey: .text) {
            self = .text(text)
        } else if let b = try container.decodeIfPresent(Bool.self, forKey: .bool) {
            self = .bool(b)
        } else if container.contains(.null) {
            self = .null
        } else if container.contains(.undefined) {
            self = .undefined
        } else if let items = try container.decodeIfPresent([FixtureValue].self, forKey: .array) {
            self = .array(items)
        } else if let entries = try container.decodeIfPresent([[FixtureValue]].self, forKey: .map) {
            self = .map(entries)
        } else {
            throw Invalid.noKnownKey
        }
    }

    /// The `CBORValue` this describes; a map naming one key twice is an error, not a merge.
    func cbor() throws -> CBORValue {
        switch self {
        case .int(let decimal): return try Self.integer(decimal)
        case .bytes(let hex): return .byteString(try Hex.bytes(hex))
        case .text(let text): return .textString(text)
        case .bool(let b): return .boolean(b)
        case .null: return .null
        case .undefined: return .undefined
        case .array(let items): return .array(try items.map { try $0.cbor() })
        case .map(let entries):
            var map: [CBORValue: CBORValue] = [:]
            for entry in entries {
                guard entry.count == 2 else { throw Invalid.mapEntryNotAPair }
                let key = try entry[0].cbor()
                guard map.updateValue(try entry[1].cbor(), forKey: key) == nil else {
                    throw Invalid.duplicateKey(key)
                }
            }
            return .map(map)
        }
    }

    /// A signed decimal in [-2^64, 2^64 - 1] as major type 0 or 1.
    private static func integer(_ decimal: String) throws -> CBORValue {
        guard decimal.hasPrefix("-") else {
            guard let n = UInt64(decimal) else { throw Invalid.integerOutOfRange(decimal) }
            return .unsigned(n)
        }
        // Major type 1 carries n = |value| - 1; |value| may be 2^64, one past UInt64.max.
        guard let n = UInt64(decrementedDecimal(String(decimal.dropFirst()))) else {
            throw Invalid.integerOutOfRange(decimal)
        }
        return .negative(n)
    }

    private static func decrementedDecimal(_ digits: String) -> String {
        var chars = Array(digits.utf8)
        var index = chars.count - 1
        while index >= 0 {
            if chars[index] == UInt8(ascii: "0") {
                chars[index] = UInt8(ascii: "9")
                index -= 1
            } else {
                chars[index] -= 1
                break
            }
        }
        let trimmed = chars.drop { $0 == UInt8(ascii: "0") }
        return trimmed.isEmpty ? "0" : String(decoding: trimmed, as: UTF8.self)
    }
}
