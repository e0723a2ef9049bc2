import Crypto
import Testing

@testable import CTAP

/// Known answers from an independent implementation (Fixtures/pin/generate.py).
@Suite("PIN/UV auth protocol known-answer vectors")
struct PinUvAuthProtocolVectorTests {
    let v: PINVectors
    let authenticatorPublicKey: COSEKey
    let platformPublicKey: COSEKey

    init() throws {
        v = try PINVectors.load()
        authenticatorPublicKey = .p256(
            x: v.authenticatorPublicKeyX.bytes, y: v.authenticatorPublicKeyY.bytes, algorithm: .ecdhESHKDF256)
        platformPublicKey = .p256(
            x: v.platformPublicKeyX.bytes, y: v.platformPublicKeyY.bytes, algorithm: .ecdhESHKDF256)
    }

    func authenticator(_ authProtocol: any PinUvAuthProtocol) throws -> PinUvAuthenticatorKeyAgreement {
        PinUvAuthenticatorKeyAgreement(
            protocol: authProtocol,
            privateKey: try P256.KeyAgreement.PrivateKey(rawRepresentation: v.authenticatorPrivateKey.bytes))
    }

    func platformKey() throws -> P256.KeyAgreement.PrivateKey {
        try P256.KeyAgreement.PrivateKey(rawRepresentation: v.platformPrivateKey.bytes)
    }

    @Test func getPublicKeyEncodesTheKeyAgreementPointWithAlgorithmMinus25() throws {
        #expect(try authenticator(PinUvAuthProtocolOne()).getPublicKey() == authenticatorPublicKey)
        #expect(try authenticator(PinUvAuthProtocolTwo()).getPublicKey() == authenticatorPublicKey)
    }

    @Test func protocolOneDerivesTheSharedSecretOnBothSides() throws {
        let one = PinUvAuthProtocolOne()
        #expect(secretBytes(one.kdf(SymmetricKey(data: v.z.bytes))) == v.protocolOne.sharedSecret.bytes)

        let (platformKeyAgreement, platformSecret) = try one.encapsulate(
            peerKey: authenticatorPublicKey, platformKey: platformKey())
        #expect(platformKeyAgreement == platformPublicKey)
        #expect(secretBytes(platformSecret) == v.protocolOne.sharedSecret.bytes)

        let authenticatorSecret = try authenticator(one).decapsulate(peerKey: platformPublicKey)
        #expect(secretBytes(authenticatorSecret) == v.protocolOne.sharedSecret.bytes)
    }

    @Test func protocolOneEncryptsAndDecryptsWithAZeroIV() throws {
        let one = PinUvAuthProtocolOne()
        let key = SymmetricKey(data: v.protocolOne.sharedSecret.bytes)
        #expect(try one.encrypt(key: key, plaintext: v.paddedNewPin.bytes) == v.protocolOne.newPinEnc.bytes)
        #expect(try one.encrypt(key: key, plaintext: v.pinHash.bytes) == v.protocolOne.pinHashEnc.bytes)
        #expect(try one.encrypt(key: key, plaintext: v.pinUvAuthToken.bytes) == v.protocolOne.pinUvAuthTokenEnc.bytes)
        #expect(try one.decrypt(key: key, ciphertext: v.protocolOne.newPinEnc.bytes) == v.paddedNewPin.bytes)
        #expect(try one.decrypt(key: key, ciphertext: v.protocolOne.pinHashEnc.bytes) == v.pinHash.bytes)
        #expect(try one.decrypt(key: key, ciphertext: v.protocolOne.pinUvAuthTokenEnc.bytes) == v.pinUvAuthToken.bytes)
    }

    @Test func protocolOneAuthenticatesWithTheSharedSecretAndWithAToken() throws {
        let one = PinUvAuthProtocolOne()
        let secret = SymmetricKey(data: v.protocolOne.sharedSecret.bytes)
        let token = SymmetricKey(data: v.pinUvAuthToken.bytes)
        #expect(one.authenticate(key: secret, message: v.message.bytes) == v.protocolOne.authenticate.bytes)
        #expect(one.authenticate(key: token, message: v.message.bytes) == v.protocolOne.authenticateWithToken.bytes)
        try one.verify(key: secret, message: v.message.bytes, signature: v.protocolOne.authenticate.bytes)
        try one.verify(key: token, message: v.message.bytes, signature: v.protocolOne.authenticateWithToken.bytes)
    }

    @Test func protocolTwoDerivesTheSharedSecretOnBothSides() throws {
        let two = PinUvAuthProtocolTwo()
        #expect(v.protocolTwo.sharedSecret.bytes == v.protocolTwo.hmacKey.bytes + v.protocolTwo.aesKey.bytes)
        #expect(secretBytes(two.kdf(SymmetricKey(data: v.z.bytes))) == v.protocolTwo.sharedSecret.bytes)

        let (platformKeyAgreement, platformSecret) = try two.encapsulate(
            peerKey: authenticatorPublicKey, platformKey: platformKey())
        #expect(platformKeyAgreement == platformPublicKey)
        #expect(secretBytes(platformSecret) == v.protocolTwo.sharedSecret.bytes)

        let authenticatorSecret = try authenticator(two).decapsulate(peerKey: platformPublicKey)
        #expect(secretBytes(authenticatorSecret) == v.protocolTwo.sharedSecret.bytes)
    }

    @Test func protocolTwoEncryptsWithTheAESKeyAndPrefixesTheIV() throws {
        let two = PinUvAuthProtocolTwo()
        let key = SymmetricKey(data: v.protocolTwo.sharedSecret.bytes)
        let iv = v.protocolTwo.iv.bytes
        #expect(try two.encrypt(key: key, plaintext: v.paddedNewPin.bytes, iv: iv) == v.protocolTwo.newPinEnc.bytes)
        #expect(try two.encrypt(key: key, plaintext: v.pinHash.bytes, iv: iv) == v.protocolTwo.pinHashEnc.bytes)
        #expect(
            try two.encrypt(key: key, plaintext: v.pinUvAuthToken.bytes, iv: iv)
                == v.protocolTwo.pinUvAuthTokenEnc.bytes)
        #expect(try two.decrypt(key: key, ciphertext: v.protocolTwo.newPinEnc.bytes) == v.paddedNewPin.bytes)
        #expect(try two.decrypt(key: key, ciphertext: v.protocolTwo.pinHashEnc.bytes) == v.pinHash.bytes)
        #expect(try two.decrypt(key: key, ciphertext: v.protocolTwo.pinUvAuthTokenEnc.bytes) == v.pinUvAuthToken.bytes)
    }

    @Test func protocolTwoAuthenticatesWithTheHMACKeyAndWithTheWholeToken() throws {
        let two = PinUvAuthProtocolTwo()
        let secret = SymmetricKey(data: v.protocolTwo.sharedSecret.bytes)
        let token = SymmetricKey(data: v.pinUvAuthToken.bytes)
        #expect(two.authenticate(key: secret, message: v.message.bytes) == v.protocolTwo.authenticate.bytes)
        #expect(two.authenticate(key: token, message: v.message.bytes) == v.protocolTwo.authenticateWithToken.bytes)
        try two.verify(key: secret, message: v.message.bytes, signature: v.protocolTwo.authenticate.bytes)
        try two.verify(key: token, message: v.message.bytes, signature: v.protocolTwo.authenticateWithToken.bytes)
    }
}

func secretBytes(_ key: SymmetricKey) -> [UInt8] {
    key.withUnsafeBytes { Array($0) }
}
