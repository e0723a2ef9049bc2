import Authenticator
import CBOR
import CTAP
import Foundation
import Testing

@testable import Keystore

/// A credential's record read without `Codable` (`CredentialSource.init(record:)`): it knows
/// every member the types have, and for every record it either gives what `RecordDecoder`
/// gives or declines, leaving the record to `RecordDecoder`.
@Suite struct CredentialRecordTests {
    private let sealer = RecordSealer(
        dataKey: .generate(), storeID: Array(repeating: 9, count: 16), path: "/test/keystore.sqlite")

    private func members(of value: Any) -> Set<String> {
        Set(Mirror(reflecting: value).children.compactMap(\.label))
    }

    /// A member added to one of these types must be added to the reader too; until it is,
    /// its records would take the `Codable` path, but one without the member would not.
    /// `extensions` is not a member of the record: its parts are, each under its own name.
    @Test func theReaderKnowsEveryMemberOfTheTypes() {
        let credential = credentialWithEveryField(backedUp: false)
        #expect(members(of: credential).subtracting(["extensions"]) == CredentialSource.ownRecordMembers)
        #expect(members(of: credential).contains("extensions"))
        #expect(
            CredentialSource.recordMembers
                == CredentialSource.ownRecordMembers.union(CredentialExtensionState.recordMemberNames))
        #expect(members(of: credential.rp) == CredentialSource.rpRecordMembers)
        #expect(members(of: credential.user) == CredentialSource.userRecordMembers)
        #expect(members(of: BackupFlags.singleDevice) == CredentialSource.backupRecordMembers)
    }

    private func record(_ credential: CredentialSource) throws -> [CBORValue: CBORValue] {
        try #require(
            try CBORDecoder.decode(RecordEncoder.encode(credential), maxDepth: RecordDecoder.nestingLimit).mapValue)
    }

    /// What `RecordDecoder` makes of the map, nil when it refuses it.
    private func viaCodable(_ map: [CBORValue: CBORValue]) -> CredentialSource? {
        try? RecordDecoder.decode(CredentialSource.self, from: CBOREncoder.encode(.map(map)))
    }

    /// Every member present (backed up or not), every optional one absent, a date before the
    /// reference date, a zero counter, and a plain credential.
    private var samples: [CredentialSource] {
        var minimal = makeCredential(name: nil, displayName: nil)
        minimal.rp.name = nil
        minimal.algorithm = .rs256
        var negativeDate = makeCredential(createdAt: Date(timeIntervalSinceReferenceDate: -12.5))
        negativeDate.signCount = 0
        return [
            credentialWithEveryField(backedUp: true), credentialWithEveryField(backedUp: false), minimal, negativeDate,
            makeCredential()
        ]
    }

    @Test func recordsAsWrittenReadAsTheyWereStored() throws {
        for credential in samples {
            let map = try record(credential)
            #expect(CredentialSource(record: .map(map)) == credential)
            #expect(viaCodable(map) == credential)
        }
    }

    /// The record a registration writes (`CredentialSource.record`) is, byte for byte, what
    /// `RecordEncoder` writes through `Codable`, and names every member a credential has.
    @Test func recordsAreWrittenAsRecordEncoderWritesThem() throws {
        for credential in samples {
            #expect(CBOREncoder.encode(credential.record) == (try RecordEncoder.encode(credential)))
        }
        let written = try #require(credentialWithEveryField(backedUp: true).record.mapValue)
        #expect(Set(written.keys.compactMap(\.textValue)) == CredentialSource.recordMembers)
    }

    /// Every member, of the credential and of its entities, replaced in turn by values of every
    /// CBOR type, or removed: the reader gives `RecordDecoder`'s value or declines.
    @Test func everyOtherShapeReadsAsCodableReadsItOrIsDeclined() throws {
        let candidates: [CBORValue] = [
            .null, .undefined, .unsigned(0), .unsigned(1), .unsigned(3), .unsigned(255), .unsigned(256),
            .unsigned(UInt64(UInt32.max)),
            .unsigned(UInt64(UInt32.max) + 1), .unsigned(.max), .negative(6), .negative(7), .negative(0),
            .negative(.max),
            .byteString([]), .byteString([1, 2]), .textString(""), .textString("x"), .boolean(true), .boolean(false),
            .array([]), .array([.unsigned(1)]), .map([:]), .map([.textString("id"): .textString("x")]),
            .map([.textString("id"): .byteString([1])]),
            .map([.textString("eligible"): .boolean(true), .textString("backedUp"): .boolean(true)]),
            .map([.textString("eligible"): .boolean(false), .textString("backedUp"): .boolean(true)]),
            .map([
                .textString("eligible"): .boolean(true), .textString("backedUp"): .boolean(false),
                .textString("more"): .null
            ])
        ]
        let original = try record(credentialWithEveryField(backedUp: false))
        var variants: [[CBORValue: CBORValue]] = []
        for key in original.keys {
            var removed = original
            removed[key] = nil
            variants.append(removed)
            for candidate in candidates {
                var changed = original
                changed[key] = candidate
                variants.append(changed)
            }
        }
        for entity in ["rp", "user", "backup"] {
            let nested = try #require(original[.textString(entity)]?.mapValue)
            for key in nested.keys {
                for candidate in candidates + [.textString("__absent__")] {
                    var inner = nested
                    inner[key] = candidate == .textString("__absent__") ? nil : candidate
                    var changed = original
                    changed[.textString(entity)] = .map(inner)
                    variants.append(changed)
                }
            }
            var extra = nested
            extra[.textString("addedLater")] = .unsigned(1)
            var changed = original
            changed[.textString(entity)] = .map(extra)
            variants.append(changed)
        }
        var unknown = original
        unknown[.textString("addedLater")] = .boolean(true)
        variants.append(unknown)
        var integerKey = original
        integerKey[.unsigned(1)] = .null
        variants.append(integerKey)

        var read = 0
        for map in variants {
            let codable = viaCodable(map)
            if let fast = CredentialSource(record: .map(map)) {
                read += 1
                // Compared as re-encoded bytes: a date may be NaN here, unequal to itself.
                let same = try codable.map { try RecordEncoder.encode($0) } == RecordEncoder.encode(fast)
                #expect(same, "read one way, decoded another: \(CBOREncoder.encode(.map(map)))")
            }
        }
        #expect(read > 20, "the reader takes the ordinary variants itself")
        #expect(CredentialSource(record: .map(unknown)) == nil, "a member it does not know goes to Codable")
    }

    /// A record as a newer build might write it: a member this one does not know, and a
    /// backup state `BackupFlags` cannot make (backed up, not eligible).
    private struct NewerRecord: Encodable {
        enum Key: String, CodingKey { case addedLater, backup, eligible, backedUp }
        let base: CredentialSource

        func encode(to encoder: any Encoder) throws {
            try base.encode(to: encoder)
            var container = encoder.container(keyedBy: Key.self)
            try container.encode("newer build", forKey: .addedLater)
            var backup = container.nestedContainer(keyedBy: Key.self, forKey: .backup)
            try backup.encode(false, forKey: .eligible)
            try backup.encode(true, forKey: .backedUp)
        }
    }

    /// What the reader declines still opens, through `Codable`, with the same checks.
    @Test func aRecordTheReaderDeclinesStillOpensThroughCodable() throws {
        var credential = credentialWithEveryField(backedUp: false)
        credential.backup = nil
        let newer = NewerRecord(base: credential)
        let map = try #require(
            try CBORDecoder.decode(RecordEncoder.encode(newer), maxDepth: RecordDecoder.nestingLimit).mapValue)
        #expect(map[.textString("addedLater")] == .textString("newer build"))
        #expect(CredentialSource(record: .map(map)) == nil)
        let expected = try #require(viaCodable(map))
        #expect(expected.backup != nil, "Codable reads the state BackupFlags cannot make")

        let row = try sealer.seal(credential)
        let sealed = try sealer.seal(newer, encoding: .cbor, context: RecordSealer.credentialContext(row))
        let opened = try sealer.open(
            CredentialRow(
                credentialIDHash: row.credentialIDHash, rpIDHash: row.rpIDHash, userHandleHash: row.userHandleHash,
                sealed: sealed))
        #expect(opened == expected)
    }

    /// Found by its RP's hash, a row whose record names another RP is still refused.
    @Test func aRowFoundByAnRPHashStillChecksTheRecordsRP() throws {
        let credential = credentialWithEveryField(backedUp: false)
        let row = try sealer.seal(credential)
        #expect(try sealer.open(row, foundBy: (credential.rp.id, row.rpIDHash)) == credential)
        let other = sealer.lookup.rp("other.example")
        let relabelled = CredentialRow(
            credentialIDHash: row.credentialIDHash, rpIDHash: other, userHandleHash: row.userHandleHash,
            sealed: row.sealed)
        #expect(throws: KeystoreError.self) { try sealer.open(relabelled, foundBy: ("other.example", other)) }
        #expect(throws: KeystoreError.self) { try sealer.open(relabelled) }
    }

    /// A record sealed before the row's hashes were its associated data (the ID hash alone)
    /// still opens, and its row's hashes are still checked against it, one by one.
    @Test func aRecordBoundToItsIDHashAloneOpensAndIsChecked() throws {
        let credential = credentialWithEveryField(backedUp: false)
        let row = try sealer.seal(credential)
        var legacy = row
        legacy.sealed = try sealer.seal(
            credential, encoding: .cbor, context: RecordSealer.legacyCredentialContext(row.credentialIDHash))
        #expect(try sealer.open(legacy) == credential)
        #expect(try sealer.open(legacy, foundBy: (credential.rp.id, row.rpIDHash)) == credential)
        let other = sealer.lookup.rp("other.example")
        for relabel in [\CredentialRow.rpIDHash, \.userHandleHash] {
            var relabelled = legacy
            relabelled[keyPath: relabel] = other
            #expect(throws: KeystoreError.self) { try sealer.open(relabelled) }
        }
        var relabelled = legacy
        relabelled.rpIDHash = other
        #expect(throws: KeystoreError.self) { try sealer.open(relabelled, foundBy: ("other.example", other)) }
    }
}
