import CTAP
import Crypto
import Foundation
import Testing

@testable import Authenticator

/// Vectors from pyca/cryptography (Fixtures/signatures/generate.py): an implementation nobody here wrote.
@Suite struct GoldenVectorTests {
    struct Vectors: Decodable {
        struct Ed: Decodable { let seed, publicKey, signature: String }
        struct P: Decodable { let scalar, x, y, derSignature: String }
        let message: String
        let ed25519: Ed
        let p256: P
    }

    static let vectors: Vectors = {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
            .appendingPathComponent("Fixtures/signatures/vectors.json")
        return try! JSONDecoder().decode(Vectors.self, from: Data(contentsOf: url))
    }()

    @Test func ed25519SignatureMatchesByteForByte() throws {
        let v = Self.vectors
        let key = CredentialKey(algorithm: .edDSA, rawRepresentation: hex(v.ed25519.seed))
        #expect(try key.publicKey() == .ed25519(x: hex(v.ed25519.publicKey)))
        #expect(try key.sign(hex(v.message)) == hex(v.ed25519.signature))
    }

    @Test func p256KeyDerivationAndSignaturesAgreeWithCryptography() throws {
        let v = Self.vectors
        let key = CredentialKey(algorithm: .es256, rawRepresentation: hex(v.p256.scalar))
        let cose = try key.publicKey()
        #expect(cose == .p256(x: hex(v.p256.x), y: hex(v.p256.y), algorithm: .es256))
        #expect(try verify(signature: hex(v.p256.derSignature), over: hex(v.message), with: cose))
        #expect(try verify(signature: key.sign(hex(v.message)), over: hex(v.message), with: cose))
    }
}
