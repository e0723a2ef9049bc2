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
}
