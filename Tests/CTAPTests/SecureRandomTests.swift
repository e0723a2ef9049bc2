import Testing

@testable import CTAP

/// `SecureRandom`: every byte asked for is drawn, in 256-byte draws (`getentropy`'s limit).
@Suite struct SecureRandomTests {
    @Test func fillsEveryChunkOfALongBuffer() {
        // 1 000 bytes: three whole draws and a partial one. A chunk left as it was (zero) has a
        // 2^-2048 chance of being drawn so.
        var bytes = [UInt8](repeating: 0, count: 1_000)
        bytes.withUnsafeMutableBytes(SecureRandom.fill)
        for start in stride(from: 0, to: bytes.count, by: 256) {
            #expect(bytes[start..<min(start + 256, bytes.count)].contains { $0 != 0 }, "bytes \(start)... never drawn")
        }
    }

    @Test func drawsAreFreshAndOfTheLengthAsked() {
        let first = SecureRandom.bytes(32)
        let second = SecureRandom.bytes(32)
        #expect(first.count == 32 && second.count == 32)
        #expect(first != second)
        #expect(SecureRandom.bytes(0).isEmpty)
    }
}
