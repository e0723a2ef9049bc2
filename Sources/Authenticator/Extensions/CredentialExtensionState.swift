import CBOR
import CTAP

/// What extensions record on a credential at creation and read back at each use: each
/// `StoresWithCredential` extension's part, as the credential's record holds it, read and
/// written through the part's declaration: `state[HMACSecretExtension.stored]`.
public struct CredentialExtensionState: Sendable, Hashable {
    /// One part's stored value, under the part's record member name.
    private struct Entry: Sendable, Hashable {
        let name: String
        var value: any ExtensionStoredValue

        static func == (lhs: Entry, rhs: Entry) -> Bool {
            lhs.name == rhs.name && lhs.value.isEqual(to: rhs.value)
        }

        func hash(into hasher: inout Hasher) {
            hasher.combine(name)
            value.hash(into: &hasher)
        }
    }

    /// The parts present, one entry each, in the order they were set: a handful, so a scan
    /// finds one faster than hashing its name would.
    private var entries: [Entry] = []

    /// Every part an extension declares, from the standard registry: a record keeps its parts
    /// whatever a device profile offers.
    static let parts: [any AnyExtensionStoredPart] = ExtensionRegistry.standard.storedParts
    private static let partNames = parts.map(\.name)
    private static let alwaysRecordedNames = parts.filter(\.alwaysRecorded).map(\.name)

    /// Equal when the same parts hold equal values, in whatever order they were set.
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.entries.count == rhs.entries.count && lhs.entries.allSatisfy(rhs.entries.contains)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(entries.reduce(0) { $0 ^ $1.hashValue })
    }

    /// A new credential's: the always-recorded parts at their defaults, nothing else.
    public init() {
        for part in Self.parts where part.alwaysRecorded {
            if let stored = part.defaultStored { set(part.name, stored) }
        }
    }

    private init(empty: Void) {}

    /// The part's value: its default when the credential has none.
    subscript<Stored, Value>(part: ExtensionStoredPart<Stored, Value>) -> Value {
        get { part.value(self[recorded: part]) }
        set { self[recorded: part] = part.stored(newValue) }
    }

    /// What the record holds for the part; nil when the member is absent.
    subscript<Stored, Value>(recorded part: ExtensionStoredPart<Stored, Value>) -> Stored? {
        get {
            for entry in entries where entry.name == part.name { return entry.value as? Stored }
            return nil
        }
        set { set(part.name, newValue) }
    }

    private mutating func set(_ name: String, _ value: (any ExtensionStoredValue)?) {
        let index = entries.firstIndex { $0.name == name }
        switch (value, index) {
        case (let value?, let index?): entries[index].value = value
        case (let value?, nil): entries.append(Entry(name: name, value: value))
        case (nil, let index?): entries.remove(at: index)
        case (nil, nil): break
        }
    }
}

/// The record's members: each part under its own name, beside the credential's own members
/// (`CredentialSource`), so a record written before the parts were declarations reads the same.
extension CredentialExtensionState {
    /// The member names the parts take.
    public static let recordMemberNames = Set(partNames)

    /// No parts, not even the always-recorded ones: where reading a record (`readRecordMember`) starts.
    public static var empty: CredentialExtensionState { CredentialExtensionState(empty: ()) }

    /// Takes the record member `name` if a part lives there; false when none does or the value
    /// is not of the part's type. Null is an absent member, as `decodeIfPresent` reads it,
    /// except for an always-recorded part.
    public mutating func readRecordMember(_ name: String, _ value: CBORValue) -> Bool {
        guard let index = Self.partNames.firstIndex(of: name) else { return false }
        let part = Self.parts[index]
        if value == .null, !part.alwaysRecorded { return true }
        guard let stored = part.read(storedCBOR: value) else { return false }
        set(name, stored)
        return true
    }

    /// Whether every always-recorded part is present: a record without one does not open.
    public var hasEveryAlwaysRecordedPart: Bool {
        Self.alwaysRecordedNames.allSatisfy { name in entries.contains { $0.name == name } }
    }

    /// The members the record holds: the parts present, and the always-recorded ones at their defaults.
    public var recordMembers: [(name: String, value: CBORValue)] {
        recorded.map { ($0.name, $0.value.storedCBOR) }
    }

    private var recorded: [(name: String, value: any ExtensionStoredValue)] {
        Self.parts.compactMap { part in
            let present = entries.first { $0.name == part.name }?.value
            return (present ?? (part.alwaysRecorded ? part.defaultStored : nil)).map { (part.name, $0) }
        }
    }

    /// A coding key for any member name.
    struct MemberKey: CodingKey {
        let stringValue: String
        init(stringValue: String) { self.stringValue = stringValue }
        var intValue: Int? { nil }
        init?(intValue: Int) { nil }
    }

    /// The parts from the members of the record `decoder` reads.
    init(recordMembersFrom decoder: any Decoder) throws {
        self.init(empty: ())
        let container = try decoder.container(keyedBy: MemberKey.self)
        for part in Self.parts {
            if let stored = try part.decode(from: container, forKey: MemberKey(stringValue: part.name)) {
                set(part.name, stored)
            }
        }
    }

    /// Writes the parts as members of the record `encoder` writes.
    func encodeRecordMembers(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: MemberKey.self)
        for (name, value) in recorded { try container.encode(value, forKey: MemberKey(stringValue: name)) }
    }
}

extension ExtensionStoredValue {
    fileprivate func isEqual(to other: any ExtensionStoredValue) -> Bool {
        (other as? Self) == self
    }
}
