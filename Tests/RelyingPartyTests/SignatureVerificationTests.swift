import CTAP
import Secp256k1
import Testing

@testable import RelyingParty

/// ES256K verification beyond the ceremony tests: ECDSA accepts both (r, s) and (r, n − s), so a
/// high-S signature from an authenticator that does not normalise must verify too.
@Suite struct SignatureVerificationTests {
    /// secp256k1's group order (SEC 2 §2.4.1).
    static let order: [UInt8] = [
        0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFE,
        0xBA, 0xAE, 0xDC, 0xE6, 0xAF, 0x48, 0xA0, 0x3B, 0xBF, 0xD2, 0x5E, 0x8C, 0xD0, 0x36, 0x41, 0x41
    ]

    @Test func anES256KSignatureVerifiesInBothSFormsAndNotOverOtherData() throws {
        let privateKey = Secp256k1.generatePrivateKey()
        let point = try Secp256k1.publicKey(privateKey: privateKey)
        let key = COSEKey.secp256k1(x: Array(point.prefix(32)), y: Array(point.suffix(32)))
        let data = Array("authenticatorData || clientDataHash".utf8)
        let lowS = try Secp256k1.signature(for: data, privateKey: privateKey)
        #expect(try key.verifies(lowS, over: data))
        let (r, s) = try #require(Self.integers(lowS))
        let highS = Self.der(r: r, s: Self.subtract(s, from: Self.order))
        #expect(highS != lowS)
        #expect(try key.verifies(highS, over: data), "(r, n - s) is the same ECDSA signature")
        #expect(try !key.verifies(lowS, over: data + [0]))
        #expect(try !key.verifies([0x30, 0x00], over: data), "not DER")
        #expect(throws: VerificationError.unusablePublicKey) {
            try COSEKey.secp256k1(x: [UInt8](repeating: 0, count: 32), y: [UInt8](repeating: 0, count: 32)).verifies(
                lowS, over: data)
        }
    }

    /// r and s of a DER ECDSA-Sig-Value (RFC 3279 §2.2.3), as 32-byte big-endian integers.
    static func integers(_ der: [UInt8]) -> (r: [UInt8], s: [UInt8])? {
        guard der.count > 2, der[0] == 0x30 else { return nil }
        var index = 2
        var values: [[UInt8]] = []
        while values.count < 2, index + 2 <= der.count, der[index] == 0x02 {
            let length = Int(der[index + 1])
            let value = Array(der[(index + 2)..<(index + 2 + length)].drop { $0 == 0 })
            values.append([UInt8](repeating: 0, count: 32 - value.count) + value)
            index += 2 + length
        }
        return values.count == 2 ? (values[0], values[1]) : nil
    }

    static func der(r: [UInt8], s: [UInt8]) -> [UInt8] {
        func integer(_ value: [UInt8]) -> [UInt8] {
            var bytes = Array(value.drop { $0 == 0 })
            if bytes.first.map({ $0 & 0x80 != 0 }) ?? true { bytes.insert(0, at: 0) }
            return [0x02, UInt8(bytes.count)] + bytes
        }
        let body = integer(r) + integer(s)
        return [0x30, UInt8(body.count)] + body
    }

    /// minuend − subtrahend for 32-byte big-endian integers, minuend the larger.
    static func subtract(_ subtrahend: [UInt8], from minuend: [UInt8]) -> [UInt8] {
        var result = [UInt8](repeating: 0, count: 32)
        var borrow = 0
        for index in (0..<32).reversed() {
            var difference = Int(minuend[index]) - Int(subtrahend[index]) - borrow
            borrow = difference < 0 ? 1 : 0
            if difference < 0 { difference += 256 }
            result[index] = UInt8(difference)
        }
        return result
    }
}
