import CBOR

/// The FAULT vendor command's request (docs/vendor-commands.md): arm a rule, list what is
/// armed, or disarm everything. The reply is always the armed rules afterwards.
public enum FaultCommand: Sendable, Equatable {
    case set(FaultRule)
    case list
    case clear

    /// The request map's keys (docs/vendor-commands.md), the only place they are written.
    enum Key: String, CodingKey {
        case op, rule
    }

    public var cbor: CBORValue {
        switch self {
        case .set(let rule): .keyed(Key.self, [(.op, "set"), (.rule, rule.cbor)])
        case .list: .keyed(Key.self, [(.op, "list")])
        case .clear: .keyed(Key.self, [(.op, "clear")])
        }
    }

    public init(bytes: [UInt8]) throws(CTAPStatus) {
        let value: CBORValue
        do { value = try CBORDecoder.decode(bytes) } catch { throw .invalidCBOR }
        let map = try CBORMap(value)
        switch try map.required(Key.op, CBORRead.text) {
        case "set": self = .set(try FaultRule(cbor: try map.required(Key.rule) { $0 }))
        case "list": self = .list
        case "clear": self = .clear
        default: throw .invalidSubcommand
        }
    }

    /// The reply: the armed rules, oldest first.
    public static func encodeReply(_ rules: [FaultRule]) -> [UInt8] {
        CBORValue.array(rules.map(\.cbor)).encoded
    }

    public static func decodeReply(_ bytes: [UInt8]) throws(CTAPStatus) -> [FaultRule] {
        let value: CBORValue
        do { value = try CBORDecoder.decode(bytes) } catch { throw .invalidCBOR }
        guard case .array(let items) = value else { throw .cborUnexpectedType }
        var rules: [FaultRule] = []
        for item in items { rules.append(try FaultRule(cbor: item)) }
        return rules
    }
}
