import Authenticator
import CBOR
import CTAP
import Crypto
import Foundation
import GRDB
import Testing

@testable import Keystore

/// A record's plaintext encodings (`RecordEncoding`): the binary one every build now writes
/// keeps every field exactly, and records of the JSON encoding earlier builds wrote still open
/// beside it, in the same store.
@Suite struct RecordEncodingTests {
    private let sealer = RecordSealer(
        dataKey: .generate(), storeID: Array(repeating: 7, count: 16), path: "/test/keystore.sqlite")

    private func everyDeviceField() -> DeviceState {
        var state = DeviceState(wrappingKey: Array(repeating: 3, count: 32))
        state.pinHash = Array(repeating: 4, count: 16)
        state.pinRetries = 0
        state.uvRetries = 5
        state.minPINLength = 63
        state.forcePINChange = true
        state.globalSignCount = 1 << 31
        state.largeBlobArray = [0x80] + Array(repeating: 9, count: 17)
        state.pinCodePoints = 12
        state.alwaysUv = true
        // Empty arrays of another element type must not be taken for empty byte strings.
        state.minPinLengthRPIDs = []
        state.u2fAttestation = U2FAttestationIdentity(
            privateKey: Array(repeating: 5, count: 32), certificate: [0x30, 0x00])
        return state
    }

    @Test func theBinaryEncodingKeepsEveryFieldOfACredentialAndTheDeviceState() throws {
        let credential = credentialWithEveryField()
        #expect(
            try RecordEncoding.cbor.decode(CredentialSource.self, from: RecordEncoding.cbor.encode(credential))
                == credential)
        var minimal = makeCredential(name: nil, displayName: nil)
        minimal.algorithm = .rs256
        #expect(
            try RecordEncoding.cbor.decode(CredentialSource.self, from: RecordEncoding.cbor.encode(minimal)) == minimal)

        let state = everyDeviceField()
        #expect(try RecordEncoding.cbor.decode(DeviceState.self, from: RecordEncoding.cbor.encode(state)) == state)
        var named = state
        named.minPinLengthRPIDs = ["a.example", "b.example"]
        #expect(try RecordEncoding.cbor.decode(DeviceState.self, from: RecordEncoding.cbor.encode(named)) == named)
    }

    @Test func byteFieldsAreByteStringsNotArraysOfNumbers() throws {
        let credential = credentialWithEveryField()
        let binary = try RecordEncoding.cbor.encode(credential)
        let members = try #require(try CBORDecoder.decode(binary, maxDepth: RecordDecoder.nestingLimit).mapValue)
        #expect(members[.textString("privateKey")] == .byteString(credential.privateKey))
        #expect(members[.textString("id")] == .byteString(credential.id))
        #expect(members[.textString("user")]?.mapValue?[.textString("id")] == .byteString(credential.user.id))
        #expect(members[.textString("algorithm")] == .negative(7), "EdDSA is -8")
        let json = try RecordEncoding.json.encode(credential)
        #expect(binary.count * 10 < json.count * 6, "well under JSON's size")
    }

    @Test func aRecordSealedAsJSONOpensAndASealedRecordIsBinary() throws {
        let credential = credentialWithEveryField()
        let legacy = try sealer.seal(credential, encoding: .json)
        #expect(try sealer.open(legacy) == credential)
        let current = try sealer.seal(credential)
        #expect(try sealer.open(current) == credential)
        #expect(current.sealed.count * 10 < legacy.sealed.count * 6, "written in the binary encoding")

        let state = everyDeviceField()
        #expect(try sealer.openDeviceState(sealer.seal(state, encoding: .json)) == state)
        #expect(try sealer.openDeviceState(sealer.seal(state)) == state)
    }

    /// A store keeps the records it has: old JSON ones open beside binary ones, and one
    /// saved again is rewritten in the binary encoding.
    @Test func aStoreWithJSONRecordsOpensThemBesideBinaryOnes() async throws {
        let temp = TemporaryDirectory()
        defer { temp.remove() }
        let old = makeCredential(rp: "mixed.example", userHandle: [1])
        let new = makeCredential(rp: "mixed.example", userHandle: [2])
        try await openStore(temp.store).close()
        // The row an earlier build wrote: sealed under the store's own key, as JSON.
        let header = try KeystoreInspection.header(of: temp.database)
        let key = try KeyFile.load(temp.keyFile, database: temp.database)
        let dataKey = try #require(
            DataKey.unwrap(header.wrappedKey, under: key, storeID: header.storeID, protection: header.protection)?.key)
        let storeSealer = RecordSealer(dataKey: dataKey, storeID: header.storeID, path: temp.database)
        let raw = try DatabaseQueue(path: temp.database)
        try await raw.write { db in try Keystore.insert(try storeSealer.seal(old, encoding: .json), db) }
        try raw.close()

        let store = try openStore(temp.store)
        try await store.save(new)
        #expect(try await store.credentials(rpID: "mixed.example") == [new, old])
        try await store.close()

        let reopened = try openStore(temp.store)
        #expect(try await reopened.credential(id: old.id) == old)
        try await reopened.updateSignCount(credentialID: old.id, to: 99)
        var counted = old
        counted.signCount = 99
        #expect(try await reopened.credential(id: old.id) == counted)
        try await reopened.close()
    }
}
