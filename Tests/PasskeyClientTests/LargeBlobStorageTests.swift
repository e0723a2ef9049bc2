import CBOR
import CTAP
import Testing

@testable import PasskeyClient

/// The platform's side of the large-blob array (CTAP 2.1 §6.10.3), which `passkeyctl export`
/// and `import` use to carry a credential's blob.
@Suite struct LargeBlobStorageTests {
    let keyA = [UInt8](repeating: 0xA1, count: 32)
    let keyB = [UInt8](repeating: 0xB2, count: 32)

    @Test func eachKeyFindsItsOwnBlobAndRewritesKeepOtherEntries() throws {
        let foreign = CBORValue.textString("another platform's entry")
        var array = SerializedLargeBlobArray(entries: [foreign])
        array = try array.setting(Array("first".utf8), for: keyA)
        array = try array.setting(Array(repeating: 0x42, count: 3000), for: keyB)
        #expect(array.blob(for: keyA) == Array("first".utf8))
        #expect(array.blob(for: keyB) == Array(repeating: 0x42, count: 3000))
        #expect(array.bytes.count < 200, "stored compressed")
        array = try array.setting(Array("second".utf8), for: keyA)
        #expect(array.blob(for: keyA) == Array("second".utf8), "a write replaces the key's blob")
        array = try array.setting(nil, for: keyB)
        #expect(array.blob(for: keyB) == nil)
        #expect(array.entries?.count == 2 && array.entries?.first == foreign, "entries it cannot open are kept")
        #expect(array.blob(for: [UInt8](repeating: 0, count: 32)) == nil)
        // What is stored verifies as the authenticator checks it (§6.10.2 step 4.9).
        #expect(try SerializedLargeBlobArray(validating: array.bytes) == array)
    }

    @Test func anEntryWhoseSizeOrCiphertextWasChangedDoesNotOpen() throws {
        let array = try SerializedLargeBlobArray.initial.setting(Array("blob".utf8), for: keyA)
        var entry = try LargeBlob(cbor: try #require(array.entries?.first))
        entry.origSize = 5
        #expect(entry.open(key: keyA) == nil, "origSize is authenticated")
        entry.origSize = 4
        entry.ciphertext[0] ^= 1
        #expect(entry.open(key: keyA) == nil)
    }

    @Test func compressionIsRawDeflate() {
        let text = Array(String(repeating: "passkeyd ", count: 100).utf8)
        let compressed = LargeBlobCompression.deflate(text)
        #expect(compressed.count < text.count / 4)
        #expect(LargeBlobCompression.inflate(compressed, size: text.count) == text)
        #expect(LargeBlobCompression.inflate(compressed, size: text.count - 1) == nil, "the size must match")
        #expect(LargeBlobCompression.inflate([0xFF, 0xFF, 0xFF], size: 3) == nil)
    }
}
