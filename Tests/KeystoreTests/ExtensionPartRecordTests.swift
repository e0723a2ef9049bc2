import Authenticator
import CBOR
import CTAP
import Foundation
import Testing

@testable import Keystore

/// Records written before the extensions' stored parts were declarations of their own (when
/// each was a field of `CredentialSource`) open unchanged and are written back byte for byte:
/// the bytes below (base64) are what `RecordEncoder` wrote of three credentials at main d6c56ba.
@Suite struct ExtensionPartRecordTests {
    /// ES256, credProtect 1 and nothing else optional.
    static let minimal = bytes(
        "qGJpZEQBAgMEYnJwoWJpZGtleGFtcGxlLmNvbWR1c2VyoWJpZEEJaWFsZ29yaXRobSZpY3JlYXRlZEF0G0HH14QAQAAAaXNpZ25D"
            + "b3VudAVqcHJpdmF0ZUtleVggERERERERERERERERERERERERERERERERERERERERERFrY3JlZFByb3RlY3QB")
    /// Every member: credProtect 3, hmacSecret true, a largeBlobKey, an empty credBlob, thirdPartyPayment false
    /// (written as false, not left out), backup flags and countsSignatures.
    static let every = bytes(
        "rmJpZEQFBgcIYnJwomJpZG1ldmVyeS5leGFtcGxlZG5hbWVlRXZlcnlkdXNlcqNiaWRCAP9kbmFtZWF1a2Rpc3BsYXlOYW1lZFVz"
            + "ZXJmYmFja3VwomhiYWNrZWRVcPRoZWxpZ2libGX1aGNyZWRCbG9iQGlhbGdvcml0aG0naWNyZWF0ZWRBdBtBx4s4wCAAAGlzaWdu"
            + "Q291bnQaAAERcGpobWFjU2VjcmV09Wpwcml2YXRlS2V5WCClpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpWtjcmVkUHJv"
            + "dGVjdANsbGFyZ2VCbG9iS2V5WCABAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAXBjb3VudHNTaWduYXR1cmVz9HF0aGly"
            + "ZFBhcnR5UGF5bWVudPQ=")
    /// credProtect 2, hmacSecret false (written), a two-byte credBlob, thirdPartyPayment true.
    static let mixed = bytes(
        "q2JpZELA3mJycKFiaWRtbWl4ZWQuZXhhbXBsZWR1c2VyomJpZEEDZG5hbWVhbWhjcmVkQmxvYkKxC2lhbGdvcml0aG0maWNyZWF0"
            + "ZWRBdBtBxz7tgAAAAGlzaWduQ291bnQAamhtYWNTZWNyZXT0anByaXZhdGVLZXlYICIiIiIiIiIiIiIiIiIiIiIiIiIiIiIiIiIi"
            + "IiIiIiIia2NyZWRQcm90ZWN0AnF0aGlyZFBhcnR5UGF5bWVudPU=")

    private static func bytes(_ base64: String) -> [UInt8] { Array(Data(base64Encoded: base64)!) }

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
