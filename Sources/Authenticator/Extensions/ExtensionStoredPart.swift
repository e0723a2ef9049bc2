import CBOR
import CTAP

/// What an extension keeps with a credential (CTAP 2.1 §12), declared once, as the `stored`
/// of its own `StoresWithCredential` type: the credential record's member it lives in, how the
/// extension's value maps to what the record holds, and, for a value a non-resident credential
/// carries in its ID, its bits of the ID's policy byte (`CredentialWrapping`).
/// `CredentialExtensionState`, `CredentialSource`'s coding and the wrapped ID work from these
/// declarations alone.
struct ExtensionStoredPart<Stored: ExtensionStoredValue, Value: Sendable>: Sendable {
    /// The record's member name. Never renamed: a keystore written under the old name would
    /// lose the value.
    let name: String
    /// Written even when unset (as the default's stored form), and required to open a record,
    /// as a member that was never optional is (credProtect).
    var alwaysRecorded = false
    /// The extension's value from what the record holds; nil is an absent member.
    let value: @Sendable (Stored?) -> Value
    /// What the record holds for a value; nil leaves the member out.
    let stored: @Sendable (Value) -> Stored?
    /// Its bits of a wrapped credential ID's policy byte; nil for a part that only a
    /// discoverable credential's record keeps.
    var policy: PolicyBits? = nil

    /// A part's bits of the policy byte: `mask` is every bit it uses, no other part's.
    struct PolicyBits: Sendable {
        let mask: UInt8
        let bits: @Sendable (Value) -> UInt8
        /// The value from its bits (the byte masked); nil when they are not a valid value,
        /// which makes the ID not ours.
        let value: @Sendable (UInt8) -> Value?
    }
}

extension ExtensionStoredPart where Stored == Bool, Value == Bool {
    /// A flag: `true` in the record when set, absent when not; carried as `policyBit` in a
    /// non-resident credential's ID when one is given.
    static func flag(_ name: String, policyBit: UInt8? = nil) -> Self {
        Self(
            name: name, value: { $0 == true }, stored: { $0 ? true : nil },
            policy: policyBit.map { bit in PolicyBits(mask: bit, bits: { $0 ? bit : 0 }, value: { $0 != 0 }) })
    }
}

extension ExtensionStoredPart where Stored == [UInt8], Value == [UInt8]? {
    /// Bytes only a discoverable credential keeps: a non-resident credential's ID has no room for them.
    static func bytes(_ name: String) -> Self {
        Self(name: name, value: { $0 }, stored: { $0 })
    }
}

/// An extension that keeps data with the credential: its part is `stored`, and by default the
/// makeCredential input, when it is the part's value, is what is kept.
protocol StoresWithCredential: AuthenticatorExtension {
    associatedtype Stored: ExtensionStoredValue
    associatedtype Value: Sendable
    static var stored: ExtensionStoredPart<Stored, Value> { get }
}

extension StoresWithCredential {
    /// `stored` without its types, for the registry's list of parts.
    static var anyStored: any AnyExtensionStoredPart { stored }
}

extension StoresWithCredential where Wire.MakeCredentialInput == Value {
    func record(_ input: Value, on credential: inout CredentialExtensionState, _ creation: CredentialCreation)
        throws(CTAPStatus)
    {
        credential[Self.stored] = input
    }
}

/// A value a credential record holds for an extension: `Codable` for the record's coding, and
/// the CBOR the keystore's `RecordEncoder` writes for it, for the keystore's reader that does
/// without `Codable` (`CredentialRecordTests` hold the two to each other).
protocol ExtensionStoredValue: Sendable, Hashable, Codable {
    init?(storedCBOR: CBORValue)
    var storedCBOR: CBORValue { get }
}

extension Bool: ExtensionStoredValue {
    init?(storedCBOR: CBORValue) {
        guard case .boolean(let flag) = storedCBOR else { return nil }
        self = flag
    }
    var storedCBOR: CBORValue { .boolean(self) }
}

extension UInt8: ExtensionStoredValue {
    init?(storedCBOR: CBORValue) {
        guard case .unsigned(let number) = storedCBOR, let byte = UInt8(exactly: number) else { return nil }
        self = byte
    }
    var storedCBOR: CBORValue { .unsigned(UInt64(self)) }
}

extension Array: ExtensionStoredValue where Element == UInt8 {
    init?(storedCBOR: CBORValue) {
        guard case .byteString(let bytes) = storedCBOR else { return nil }
        self = bytes
    }
    var storedCBOR: CBORValue { .byteString(self) }
}

/// `ExtensionStoredPart` without its types, for what goes over every part: the record's
/// members and the wrapped ID's policy byte.
protocol AnyExtensionStoredPart: Sendable {
    var name: String { get }
    var alwaysRecorded: Bool { get }
    /// Its bits of the policy byte, 0 for none.
    var policyMask: UInt8 { get }
    /// What the record holds for an unset value, nil for nothing.
    var defaultStored: (any ExtensionStoredValue)? { get }
    /// The record's CBOR for this member as the part's stored type, nil when it is not one.
    func read(storedCBOR: CBORValue) -> (any ExtensionStoredValue)?
    /// The member through `Codable`, nil when absent (or null).
    func decode<Key: CodingKey>(from container: KeyedDecodingContainer<Key>, forKey key: Key) throws
        -> (any ExtensionStoredValue)?
    /// The part's bits of the policy byte for `state`.
    func policyBits(of state: CredentialExtensionState) -> UInt8
    /// Sets the part in `state` from the policy byte; false when its bits are not a valid value.
    func apply(policy: UInt8, to state: inout CredentialExtensionState) -> Bool
}

extension ExtensionStoredPart: AnyExtensionStoredPart {
    var policyMask: UInt8 { policy?.mask ?? 0 }
    var defaultStored: (any ExtensionStoredValue)? { stored(value(nil)) }

    func read(storedCBOR: CBORValue) -> (any ExtensionStoredValue)? { Stored(storedCBOR: storedCBOR) }

    func decode<Key: CodingKey>(from container: KeyedDecodingContainer<Key>, forKey key: Key) throws
        -> (any ExtensionStoredValue)?
    {
        if alwaysRecorded { return try container.decode(Stored.self, forKey: key) }
        return try container.decodeIfPresent(Stored.self, forKey: key)
    }

    func policyBits(of state: CredentialExtensionState) -> UInt8 {
        policy.map { $0.bits(state[self]) & $0.mask } ?? 0
    }

    func apply(policy byte: UInt8, to state: inout CredentialExtensionState) -> Bool {
        guard let policy else { return true }
        guard let value = policy.value(byte & policy.mask) else { return false }
        state[self] = value
        return true
    }
}
