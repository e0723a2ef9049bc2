import CBOR
import CTAP
import Testing

@testable import Authenticator

/// An extension's stored part, declared once (`ExtensionStoredPart`), read and written through
/// `CredentialExtensionState` as the fields it replaces were.
@Suite struct ExtensionStoredPartTests {
    private func members(_ state: CredentialExtensionState) -> [String: CBORValue] {
        Dictionary(uniqueKeysWithValues: state.recordMembers.map { ($0.name, $0.value) })
    }

    /// A new credential records credProtect 1 and nothing else, as `CredentialSource` did.
    @Test func aNewCredentialRecordsOnlyItsCredProtectLevel() {
        let state = CredentialExtensionState()
        #expect(members(state) == ["credProtect": .unsigned(1)])
        #expect(state[CredProtectExtension.stored] == .userVerificationOptional)
        #expect(!state[HMACSecretExtension.stored] && !state[ThirdPartyPaymentExtension.stored])
        #expect(state[LargeBlobKeyExtension.stored] == nil && state[CredBlobExtension.stored] == nil)
        // Even a state read from nothing writes the level, which records always had.
        #expect(members(.empty) == ["credProtect": .unsigned(1)])
        #expect(!CredentialExtensionState.empty.hasEveryAlwaysRecordedPart)
    }

    /// A flag is recorded as `true` when set and left out when cleared (never `false`), bytes
    /// are kept even when empty.
    @Test func flagsAreRecordedWhenSetAndBytesEvenWhenEmpty() {
        var state = CredentialExtensionState()
        state[HMACSecretExtension.stored] = true
        state[CredBlobExtension.stored] = []
        state[CredProtectExtension.stored] = .userVerificationRequired
        #expect(
            members(state) == ["credProtect": .unsigned(3), "hmacSecret": .boolean(true), "credBlob": .byteString([])])
        state[HMACSecretExtension.stored] = false
        state[CredBlobExtension.stored] = nil
        #expect(members(state) == ["credProtect": .unsigned(3)])
        #expect(state[recorded: HMACSecretExtension.stored] == nil)
    }

    /// What a record holds is kept as it is, even where the value reads as the default: an
    /// explicit `false` stays in the record.
    @Test func aRecordedFalseIsKept() {
        var state = CredentialExtensionState.empty
        let credProtect = state.readRecordMember("credProtect", .unsigned(2))
        let thirdPartyPayment = state.readRecordMember("thirdPartyPayment", .boolean(false))
        let null = state.readRecordMember("hmacSecret", .null)
        #expect(credProtect && thirdPartyPayment)
        #expect(null, "null reads as absent")
        let otherType = state.readRecordMember("largeBlobKey", .textString("x"))
        let unknown = state.readRecordMember("addedLater", .boolean(true))
        let outOfRange = state.readRecordMember("credProtect", .unsigned(256))
        #expect(!otherType, "a value of another type is declined")
        #expect(!unknown, "a member no part declares is declined")
        #expect(!outOfRange)
        #expect(state.hasEveryAlwaysRecordedPart)
        #expect(members(state) == ["credProtect": .unsigned(2), "thirdPartyPayment": .boolean(false)])
        #expect(!state[ThirdPartyPaymentExtension.stored])
    }

    /// Equal contents are equal states whatever order they were set in.
    @Test func equalityDoesNotDependOnOrder() {
        var one = CredentialExtensionState()
        one[LargeBlobKeyExtension.stored] = [1]
        one[ThirdPartyPaymentExtension.stored] = true
        var other = CredentialExtensionState()
        other[ThirdPartyPaymentExtension.stored] = true
        other[LargeBlobKeyExtension.stored] = [1]
        #expect(one == other && one.hashValue == other.hashValue)
        other[LargeBlobKeyExtension.stored] = [2]
        #expect(one != other)
    }

    /// The record hooks of hmac-secret, credProtect and thirdPartyPayment are the protocol's: the
    /// makeCredential input is the part's value.
    @Test func anInputThatIsThePartsValueIsRecordedAsIs() throws {
        var state = CredentialExtensionState()
        let creation = CredentialCreation(userVerified: false, residentKey: false)
        try HMACSecretExtension().record(true, on: &state, creation)
        try CredProtectExtension().record(.userVerificationOptionalWithCredentialIDList, on: &state, creation)
        try ThirdPartyPaymentExtension().record(true, on: &state, creation)
        #expect(
            members(state) == [
                "credProtect": .unsigned(2), "hmacSecret": .boolean(true), "thirdPartyPayment": .boolean(true)
            ])
    }

    /// The recipe's example (docs/architecture.md, "Adding an extension"): a new extension that
    /// keeps data with the credential declares its part in its own type, and the registry's line
    /// is all that joins it to the record and the wrapped ID.
    @Test func aNewExtensionsPartIsItsOwnDeclaration() throws {
        let registry = ExtensionRegistry(extensions: ExtensionRegistry.standard.extensions + [ExampleExtension()])
        #expect(registry.storedParts.map(\.name) == CredentialExtensionState.parts.map(\.name) + ["example"])
        #expect(registry.storedParts.last?.policyMask == 0x20)
        var inputs = ExtensionMap()
        inputs.set(Example.identifier, .boolean(true))
        var state = CredentialExtensionState()
        for prepared in try registry.makeCredential(inputs) {
            try prepared.record(&state, CredentialCreation(userVerified: false, residentKey: true))
        }
        #expect(state[ExampleExtension.stored])
        #expect(state[recorded: ExampleExtension.stored] == true)
    }
}

/// The example extension of docs/architecture.md's recipe.
private enum Example: CTAPExtension {
    static let identifier = "example"
    typealias MakeCredentialInput = Bool
    typealias GetAssertionInput = Bool
    typealias GetAssertionOutput = Bool
}

private struct ExampleExtension: StoresWithCredential {
    typealias Wire = Example
    /// `example: true` in the record, 0x20 in a wrapped ID's policy byte.
    static let stored = ExtensionStoredPart.flag("example", policyBit: 0x20)

    func getAssertionOutput(_ input: Bool, _ context: ExtensionContext) async throws(CTAPStatus) -> Bool? {
        input ? context.credential[Self.stored] : nil
    }
}
