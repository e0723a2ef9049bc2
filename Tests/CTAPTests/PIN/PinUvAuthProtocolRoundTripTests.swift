import Crypto
import Testing

@testable import CTAP

/// Both ends of each protocol with fresh keys, as the authenticator and a platform run them.
@Suite("PIN/UV auth protocol round trips")
struct PinUvAuthProtocolRoundTripTests {
    /// A point that is not on P-256.
    static let offCurve = COSEKey.p256(
        x: [UInt8](repeating: 0, count: 31) + [1], y: [UInt8](repeating: 0, count: 31) + [1], algorithm: .ecdhESHKDF256)

    @Test(arguments: PinUvAuthProtocolVersion.allCases)
    func platformAndAuthenticatorAgreeOnTheSharedSecret(version: PinUvAuthProtocolVersion) throws {
        let authenticator = PinUvAuthenticatorKeyAgreement(protocol: version)
        let (platformKey, platformSecret) = try version.implementation.encapsulate(
            peerKey: authenticator.getPublicKey())
        let authenticatorSecret = try authenticator.decapsulate(peerKey: platformKey)
        #expect(platformSecret == authenticatorSecret)
        #expect(platformSecret.bitCount == (version == .one ? 256 : 512))
        #expect(platformKey.algorithm == .ecdhESHKDF256)
    }

    @Test(arguments: PinUvAuthProtocolVersion.allCases)
    func eachEncapsulationUsesAFreshPlatformKey(version: PinUvAuthProtocolVersion) throws {
        let authenticator = PinUvAuthenticatorKeyAgreement(protocol: version)
        let first = try version.implementation.encapsulate(peerKey: authenticator.getPublicKey())
        let second = try version.implementation.encapsulate(peerKey: authenticator.getPublicKey())
        #expect(first.platformKeyAgreement != second.platformKeyAgreement)
        #expect(first.sharedSecret != second.sharedSecret)
    }

    @Test(arguments: PinUvAuthProtocolVersion.allCases)
    func regenerateInvalidatesSecretsMadeWithTheOldKey(version: PinUvAuthProtocolVersion) throws {
        var authenticator = PinUvAuthenticatorKeyAgreement(protocol: version)
        let oldPublicKey = authenticator.getPublicKey()
        let (platformKey, platformSecret) = try version.implementation.encapsulate(peerKey: oldPublicKey)
        authenticator.regenerate()
        #expect(authenticator.getPublicKey() != oldPublicKey)
        #expect(try authenticator.decapsulate(peerKey: platformKey) != platformSecret)
    }

    @Test(arguments: PinUvAuthProtocolVersion.allCases)
    func whatThePlatformEncryptsTheAuthenticatorDecrypts(version: PinUvAuthProtocolVersion) throws {
        let authenticator = PinUvAuthenticatorKeyAgreement(protocol: version)
        let p = version.implementation
        let (platformKey, platformSecret) = try p.encapsulate(peerKey: authenticator.getPublicKey())
        let authenticatorSecret = try authenticator.decapsulate(peerKey: platformKey)
        let paddedPin = Array("correct horse".utf8) + [UInt8](repeating: 0, count: 64 - 13)

        let ciphertext = try p.encrypt(key: platformSecret, plaintext: paddedPin)
        #expect(ciphertext.count == (version == .one ? 64 : 80))
        #expect(try p.decrypt(key: authenticatorSecret, ciphertext: ciphertext) == paddedPin)
    }

    @Test(arguments: PinUvAuthProtocolVersion.allCases)
    func theAuthenticatorVerifiesWhatThePlatformAuthenticated(version: PinUvAuthProtocolVersion) throws {
        let authenticator = PinUvAuthenticatorKeyAgreement(protocol: version)
        let p = version.implementation
        let (platformKey, platformSecret) = try p.encapsulate(peerKey: authenticator.getPublicKey())
        let authenticatorSecret = try authenticator.decapsulate(peerKey: platformKey)
        let message = [UInt8](repeating: 0xFF, count: 32) + [0x06]

        let mac = p.authenticate(key: platformSecret, message: message)
        #expect(mac.count == (version == .one ? 16 : 32))
        try p.verify(key: authenticatorSecret, message: message, signature: mac)
    }

    @Test(arguments: PinUvAuthProtocolVersion.allCases)
    func verifyRejectsATamperedMACOrMessage(version: PinUvAuthProtocolVersion) throws {
        let p = version.implementation
        let key = SymmetricKey(size: .bits256)
        let message: [UInt8] = Array("clientDataHash".utf8)
        let mac = p.authenticate(key: key, message: message)

        var flipped = mac
        flipped[flipped.count - 1] ^= 0x01
        #expect(throws: CTAPStatus.pinAuthInvalid) { try p.verify(key: key, message: message, signature: flipped) }
        #expect(throws: CTAPStatus.pinAuthInvalid) { try p.verify(key: key, message: message + [0], signature: mac) }
        #expect(throws: CTAPStatus.pinAuthInvalid) {
            try p.verify(key: key, message: message, signature: Array(mac.prefix(8)))
        }
        #expect(throws: CTAPStatus.pinAuthInvalid) { try p.verify(key: key, message: message, signature: mac + [0]) }
        #expect(throws: CTAPStatus.pinAuthInvalid) { try p.verify(key: key, message: message, signature: []) }
        #expect(throws: CTAPStatus.pinAuthInvalid) {
            try p.verify(key: SymmetricKey(size: .bits256), message: message, signature: mac)
        }
    }

    @Test(arguments: PinUvAuthProtocolVersion.allCases)
    func plaintextThatIsNotWholeBlocksIsRefused(version: PinUvAuthProtocolVersion) throws {
        let p = version.implementation
        let key = SymmetricKey(size: SymmetricKeySize(bitCount: version == .one ? 256 : 512))
        #expect(throws: CTAPStatus.invalidParameter) {
            try p.encrypt(key: key, plaintext: [UInt8](repeating: 1, count: 15))
        }
        #expect(throws: CTAPStatus.invalidParameter) {
            try p.encrypt(key: key, plaintext: [UInt8](repeating: 1, count: 65))
        }
        #expect(throws: CTAPStatus.invalidParameter) {
            try p.decrypt(key: key, ciphertext: [UInt8](repeating: 1, count: 33))
        }
    }

    @Test func protocolTwoRefusesCiphertextShorterThanItsIV() {
        let key = SymmetricKey(size: SymmetricKeySize(bitCount: 512))
        #expect(throws: CTAPStatus.invalidParameter) {
            try PinUvAuthProtocolTwo().decrypt(key: key, ciphertext: [UInt8](repeating: 0, count: 15))
        }
    }

    @Test func protocolTwoUsesAFreshIVForEachEncryption() throws {
        let two = PinUvAuthProtocolTwo()
        let key = SymmetricKey(size: SymmetricKeySize(bitCount: 512))
        let plaintext = [UInt8](repeating: 7, count: 32)
        let a = try two.encrypt(key: key, plaintext: plaintext)
        let b = try two.encrypt(key: key, plaintext: plaintext)
        #expect(a.prefix(16) != b.prefix(16))
        #expect(try two.decrypt(key: key, ciphertext: a) == plaintext)
        #expect(try two.decrypt(key: key, ciphertext: b) == plaintext)
    }

    @Test(arguments: PinUvAuthProtocolVersion.allCases)
    func aPeerKeyOffTheCurveIsAnInvalidParameter(version: PinUvAuthProtocolVersion) {
        let authenticator = PinUvAuthenticatorKeyAgreement(protocol: version)
        #expect(throws: CTAPStatus.invalidParameter) { try authenticator.decapsulate(peerKey: Self.offCurve) }
        #expect(throws: CTAPStatus.invalidParameter) { try version.implementation.encapsulate(peerKey: Self.offCurve) }
    }

    @Test(arguments: PinUvAuthProtocolVersion.allCases)
    func aPeerKeyOnAnotherCurveIsAnInvalidParameter(version: PinUvAuthProtocolVersion) {
        let authenticator = PinUvAuthenticatorKeyAgreement(protocol: version)
        let ed25519 = COSEKey.ed25519(x: [UInt8](repeating: 9, count: 32))
        #expect(throws: CTAPStatus.invalidParameter) { try authenticator.decapsulate(peerKey: ed25519) }
        #expect(throws: CTAPStatus.invalidParameter) { try version.implementation.encapsulate(peerKey: ed25519) }
    }

    @Test func theVersionNamesItsImplementation() {
        #expect(PinUvAuthProtocolVersion(rawValue: 1)?.implementation.version == .one)
        #expect(PinUvAuthProtocolVersion(rawValue: 2)?.implementation.version == .two)
        #expect(PinUvAuthProtocolVersion(rawValue: 3) == nil)
    }
}
