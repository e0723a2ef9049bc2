import CTAP
import Crypto
import Foundation
import Testing

@testable import Authenticator

/// The wrapped credential ID's policy byte, now made from the extensions' declared parts
/// (`ExtensionStoredPart.policy`): IDs minted before (main d6c56ba, wrapping key 0x42 × 32, RP
/// "example.com") unwrap to what they held, and today's code seals the very plaintext they carry.
@Suite struct CredentialWrappingPolicyTests {
    static let wrappingKey = [UInt8](repeating: 0x42, count: 32)
    static let rpIDHash = Array(SHA256.hash(data: Array("example.com".utf8)))
    static let p256Scalar = [UInt8](repeating: 0x11, count: 32)
    static let ed25519Seed = [UInt8](repeating: 0x5A, count: 32)

    struct Minted: Sendable {
        let id: String
        let algorithm: COSEAlgorithm
        let level: CredentialProtection
        let hmacSecret: Bool
        let thirdPartyPayment: Bool
    }

    static let minted: [Minted] = [
        Minted(
            id: "0177155fe7350167179c23939878f4f010b2557a78e9c1705357bd90e156d3cd10629c78b9d6c48d2885fd6a697c7a8f2156"
                + "7cefcf80ecff8672f1ac7e3cdd",
            algorithm: .es256, level: .userVerificationOptional, hmacSecret: false, thirdPartyPayment: false),
        Minted(
            id: "01cab090c4c544caff6e0eef95559d54543d638a81c1ca2099d37473390eee5eaa2c62ba25eff92d77f3a75d8418887e4cd5"
                + "b41fd8d5ff33db2b83c4e01e43",
            algorithm: .es256, level: .userVerificationOptionalWithCredentialIDList, hmacSecret: true,
            thirdPartyPayment: false),
        Minted(
            id: "01c6af1e2ff4c8b8b8453c73dcb3ae4bbc6616c272afec95ecd52882b917891e884c842e0454c955b7f6367bfbd54d7bab56"
                + "170dc1c18ed8b05961e4b0abd9",
            algorithm: .edDSA, level: .userVerificationRequired, hmacSecret: true, thirdPartyPayment: true),
        Minted(
            id: "016d46f6e5cbaab97de68e47e3e254aee035f657282915327f27109f9086e9e46eec709e5cb26521eebdd71d2b8201fc3c31"
                + "5ab7b65ff3f82ed2e90762d10b",
            algorithm: .es256, level: .userVerificationOptional, hmacSecret: false, thirdPartyPayment: true)
    ]

    @Test(arguments: minted) func anIDMintedBeforeUnwrapsToWhatItHeld(_ minted: Minted) throws {
        let id = hex(minted.id)
        let (key, state) = try #require(
            CredentialWrapping.unwrap(id, rpIDHash: Self.rpIDHash, wrappingKey: Self.wrappingKey))
        #expect(key.algorithm == minted.algorithm)
        #expect(key.rawRepresentation == (minted.algorithm == .edDSA ? Self.ed25519Seed : Self.p256Scalar))
        #expect(state[CredProtectExtension.stored] == minted.level)
        #expect(state[HMACSecretExtension.stored] == minted.hmacSecret)
        #expect(state[ThirdPartyPaymentExtension.stored] == minted.thirdPartyPayment)
        #expect(state[LargeBlobKeyExtension.stored] == nil && state[CredBlobExtension.stored] == nil)
        // Re-sealed today, the plaintext is the one the old ID carries, byte for byte.
        #expect(CredentialWrapping.plaintext(key, extensions: state) == (try Self.open(id)))
    }

    /// A policy byte with a bit no part declares, or a credProtect level that does not exist,
    /// is not an ID this device minted, as before.
    @Test func aPolicyByteWithAnUndeclaredBitOrNoLevelIsNotOurs() throws {
        for policy: UInt8 in [0x00, 0x04, 0x08, 0x10, 0x20, 0x21, 0x83, 0xC4] {
            let id = try Self.seal([1, policy] + Self.p256Scalar)
            #expect(
                CredentialWrapping.unwrap(id, rpIDHash: Self.rpIDHash, wrappingKey: Self.wrappingKey)?.extensions
                    == (policy == 0x83 ? Self.state(level: .userVerificationRequired, hmacSecret: true) : nil),
                "policy \(policy)")
        }
        for policy: UInt8 in [0x01, 0x02, 0x03, 0x41, 0x81, 0xC3] {
            let id = try Self.seal([1, policy] + Self.p256Scalar)
            #expect(CredentialWrapping.unwrap(id, rpIDHash: Self.rpIDHash, wrappingKey: Self.wrappingKey) != nil)
        }
    }

    /// The parts' policy bits never overlap, and their names are distinct.
    @Test func thePartsDeclareDistinctNamesAndDisjointBits() {
        let parts = CredentialExtensionState.parts
        #expect(Set(parts.map(\.name)).count == parts.count)
        var used: UInt8 = 0
        for part in parts {
            #expect(used & part.policyMask == 0, "\(part.name) reuses a policy bit")
            used |= part.policyMask
        }
        #expect(used == 0xC3)
    }

    private static func state(level: CredentialProtection, hmacSecret: Bool) -> CredentialExtensionState {
        var state = CredentialExtensionState()
        state[CredProtectExtension.stored] = level
        state[HMACSecretExtension.stored] = hmacSecret
        return state
    }

    private static func open(_ id: [UInt8]) throws -> [UInt8] {
        let box = try AES.GCM.SealedBox(
            nonce: AES.GCM.Nonce(data: id[1..<13]), ciphertext: id[13..<(id.count - 16)], tag: id.suffix(16))
        return Array(try AES.GCM.open(box, using: SymmetricKey(data: wrappingKey), authenticating: [1] + rpIDHash))
    }

    private static func seal(_ plaintext: [UInt8]) throws -> [UInt8] {
        let box = try AES.GCM.seal(plaintext, using: SymmetricKey(data: wrappingKey), authenticating: [1] + rpIDHash)
        return [1] + Array(box.nonce) + Array(box.ciphertext) + Array(box.tag)
    }
}
