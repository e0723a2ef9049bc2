import Authenticator
import CBOR
import CTAP
import Foundation
import Testing

@testable import Keystore

/// Records written before the extensions' stored parts were declarations of their own (when
/// each was a field of `CredentialSource`) open unchanged and are written back byte for byte:
/// the bytes below are what `RecordEncoder` wrote of three credentials at main d6c56ba.
@Suite struct ExtensionPartRecordTests {
    /// ES256, credProtect 1 and nothing else optional.
    static let minimal = bytes(
        "a86269644401020304627270a16269646b6578616d706c652e636f6d6475736572a1626964410969616c676f726974686d266963"
            + "72656174656441741b41c7d78400400000697369676e436f756e74056a707269766174654b657958201111111111111111111111"
            + "1111111111111111111111111111111111111111116b6372656450726f7465637401")
    /// Every member: credProtect 3, hmacSecret true, a largeBlobKey, an empty credBlob, thirdPartyPayment false
    /// (written as false, not left out), backup flags and countsSignatures.
    static let every = bytes(
        "ae6269644405060708627270a26269646d65766572792e6578616d706c65646e616d656545766572796475736572a36269644200"
            + "ff646e616d6561756b646973706c61794e616d656455736572666261636b7570a2686261636b65645570f468656c696769626c65"
            + "f56863726564426c6f624069616c676f726974686d27696372656174656441741b41c78b38c0200000697369676e436f756e741a"
            + "000111706a686d6163536563726574f56a707269766174654b65795820a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5"
            + "a5a5a5a5a5a5a5a5a56b6372656450726f74656374036c6c61726765426c6f624b65795820010101010101010101010101010101"
            + "010101010101010101010101010101010170636f756e74735369676e617475726573f471746869726450617274795061796d656e"
            + "74f4")
    /// credProtect 2, hmacSecret false (written), a two-byte credBlob, thirdPartyPayment true.
    static let mixed = bytes(
        "ab62696442c0de627270a16269646d6d697865642e6578616d706c656475736572a26269644103646e616d65616d686372656442"
            + "6c6f6242b10b69616c676f726974686d26696372656174656441741b41c73eed80000000697369676e436f756e74006a686d6163"
            + "536563726574f46a707269766174654b657958202222222222222222222222222222222222222222222222222222222222222222"
            + "6b6372656450726f746563740271746869726450617274795061796d656e74f5")

    private static func bytes(_ hex: String) -> [UInt8] {
        var result: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            result.append(UInt8(hex[index..<next], radix: 16)!)
            index = next
        }
        return result
    }

    /// Read both ways (`Codable` and the keystore's own reader), the same credential; written
    /// both ways, the very bytes read.
    private func reopen(_ written: [UInt8]) throws -> CredentialSource {
        let viaCodable = try RecordDecoder.decode(CredentialSource.self, from: written)
        let record = try CBORDecoder.decode(written, maxDepth: RecordDecoder.nestingLimit)
        let viaReader = try #require(CredentialSource(record: record))
        #expect(viaReader == viaCodable)
        #expect(try RecordEncoder.encode(viaCodable) == written)
        #expect(CBOREncoder.encode(viaReader.record) == written)
        return viaCodable
    }

    @Test func aMinimalRecordReopensAndIsWrittenBackUnchanged() throws {
        let credential = try reopen(Self.minimal)
        #expect(credential.id == [1, 2, 3, 4] && credential.signCount == 5 && credential.algorithm == .es256)
        #expect(credential.credProtect == 1)
        #expect(credential.hmacSecret == nil && credential.largeBlobKey == nil && credential.credBlob == nil)
        #expect(credential.thirdPartyPayment == nil && credential.backup == nil && credential.countsSignatures == nil)
    }

    @Test func aRecordWithEveryExtensionMemberReopensAndIsWrittenBackUnchanged() throws {
        let credential = try reopen(Self.every)
        #expect(credential.algorithm == .edDSA && credential.signCount == 70_000)
        #expect(credential.credProtect == 3 && credential.hmacSecret == true)
        #expect(credential.largeBlobKey == Array(repeating: 1, count: 32) && credential.credBlob == [])
        #expect(credential.thirdPartyPayment == false, "an explicit false stays false, not absent")
        #expect(credential.backup == BackupFlags(eligible: true, backedUp: false))
        #expect(credential.countsSignatures == false)
    }

    @Test func aRecordWithFalseAndTrueFlagsReopensAndIsWrittenBackUnchanged() throws {
        let credential = try reopen(Self.mixed)
        #expect(credential.credProtect == 2 && credential.hmacSecret == false)
        #expect(credential.credBlob == [0xB1, 0x0B] && credential.largeBlobKey == nil)
        #expect(credential.thirdPartyPayment == true)
    }

    /// Today's `CredentialSource` writes what yesterday's wrote for the same values.
    @Test func theSameCredentialMadeTodayIsWrittenAsBefore() throws {
        let credential = CredentialSource(
            id: [0xC0, 0xDE], rp: PublicKeyCredentialRpEntity(id: "mixed.example", name: nil),
            user: PublicKeyCredentialUserEntity(id: [3], name: "m", displayName: nil), algorithm: .es256,
            privateKey: Array(repeating: 0x22, count: 32), signCount: 0,
            createdAt: Date(timeIntervalSinceReferenceDate: 780_000_000), credProtect: 2, hmacSecret: false,
            credBlob: [0xB1, 0x0B], thirdPartyPayment: true)
        #expect(try RecordEncoder.encode(credential) == Self.mixed)
        #expect(CBOREncoder.encode(credential.record) == Self.mixed)
    }

    /// credProtect was never optional: a record without it does not open, either way.
    @Test func aRecordWithoutCredProtectDoesNotOpen() throws {
        var members = try #require(try CBORDecoder.decode(Self.minimal, maxDepth: RecordDecoder.nestingLimit).mapValue)
        members[.textString("credProtect")] = nil
        #expect(CredentialSource(record: .map(members)) == nil)
        #expect(throws: (any Error).self) {
            try RecordDecoder.decode(CredentialSource.self, from: CBOREncoder.encode(.map(members)))
        }
        members[.textString("credProtect")] = .null
        #expect(CredentialSource(record: .map(members)) == nil)
    }

    /// An extension's part never takes a name the credential's own members use.
    @Test func extensionPartsTakeNamesOfTheirOwn() {
        #expect(CredentialSource.ownRecordMembers.isDisjoint(with: CredentialExtensionState.recordMemberNames))
        #expect(
            CredentialExtensionState.recordMemberNames == [
                "credProtect", "hmacSecret", "largeBlobKey", "credBlob", "thirdPartyPayment"
            ])
    }
}
