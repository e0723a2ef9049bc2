import CBOR
import CTAP
import Crypto
import Testing

@testable import Authenticator

/// ARKG-P256's private-key side against draft-bradleylundberg-cfrg-arkg-10 Appendix A.1, and the
/// arithmetic under it against RFC 9380 Appendix K.1 and values python computed.
@Suite struct ARKGTests {
    struct Vector: Sendable, CustomTestStringConvertible {
        let context: String
        let keyHandle: String
        let tau: String
        let derivedPrivateKey: String
        let derivedPublicKey: String
        var testDescription: String { context + " " + keyHandle.prefix(8) }
    }

    static let blindingPrivateKey = "d959500a78ccf850ce46c80a8c5043c9a2e33844232b3829df37d05b3069f455"
    static let encapsulationPrivateKey = "74e0a4cd81ca2d24246ff75bfd6d4fb7f9dfc938372627feb2c2348f8b1493b5"
    static let blindingPublicKey =
        "6d3bdf31d0db48988f16d47048fdd24123cd286e42d0512daa9f726b4ecf18df65ed42169c69675f936ff7de5f9bd93adbc8ea73036b16e8d90adbfabdaddba7"
    static let encapsulationPublicKey =
        "c38bbdd7286196733fa177e43b73cfd3d6d72cd11cc0bb2c9236cf85a42dcff5dfa339c1e07dfcdfda8d7be2a5a3c7382991f387dfe332b1dd8da6e0622cfb35"

    static let vectors = [
        Vector(
            context: "ARKG-P256.test vectors",
            keyHandle:
                "27987995f184a44cfa548d104b0a461d0487fc739dbcdabc293ac5469221da91b220e04c681074ec4692a76ffacb9043dec2847ea9060fd42da267f66852e63589f0c00dc88f290d660c65a65a50c86361",
            tau: "9e042fde2e12c1f4002054a8feac60088cc893b4838423c26a20af686c8c16e3",
            derivedPrivateKey: "775d7fe9a6dfba43ce671cb38afca3d272c4d14aff97bd67559eb500a092e5e7",
            derivedPublicKey:
                "572a111ce5cfd2a67d56a0f7c684184b16ccd212490dc9c5b579df749647d107dac2a1b197cc10d2376559ad6df6bc107318d5cfb90def9f4a1f5347e086c2cd"
        ),
        Vector(
            context: "ARKG-P256.test vectors",
            keyHandle:
                "b7507a82771776fbac41a18d94e19a7e0457fd1e438280c127dd55a6138d1baf0a35e3e9671f7e42d8345f47374afa83247a078fa2196cd69497aed59ef92c05cb6b03d306ec24f2f4ff2db09cd95d1b11",
            tau: "88cf9464b041a52cf2b837281afc67302ec9cb32da1fe515381b79c0d0c92322",
            derivedPrivateKey: "6228e470290e9d7cc0feff32a74caafa14c608c956337eba23997f5904cff226",
            derivedPublicKey:
                "ea7d962c9f44ffe8b18f1058a471f394ef81b674948eefc1865b5c021cf858f577f9632b84220e4a1444a20b9430b86731c37e4dcb285eda38d76bf758918d86"
        ),
        Vector(
            context: "ARKG-P256.test vectors.0",
            keyHandle:
                "81c4e65b552e52350b49864b98b87d510487fc739dbcdabc293ac5469221da91b220e04c681074ec4692a76ffacb9043dec2847ea9060fd42da267f66852e63589f0c00dc88f290d660c65a65a50c86361",
            tau: "513ea417b6cdc3536178fa81da36b4e5ecdc142c2d46a52e05257f21794e3789",
            derivedPrivateKey: "2a97f4232f9abba32fbfc28c6686f8afd2d851c2a95a3ed2f0a384b9ad55068d",
            derivedPublicKey:
                "b79b65d6bbb419ff97006a1bd52e3f4ad53042173992423e06e52987a037cb61dd82b126b162e4e7e8dc5c9fd86e82769d402a1968c7c547ef53ae4f96e10b0e"
        )
    ]

    static func seed() throws -> ARKGP256PrivateSeed {
        try ARKGP256PrivateSeed(rawRepresentation: hex(blindingPrivateKey) + hex(encapsulationPrivateKey))
    }

    @Test(arguments: vectors) func derivesTheDraftsPrivateKeyFromItsKeyHandle(_ vector: Vector) throws {
        let key = try Self.seed().derivePrivateKey(
            keyHandle: hex(vector.keyHandle), context: Array(vector.context.utf8))
        #expect(Array(key.rawRepresentation) == hex(vector.derivedPrivateKey))
        #expect(Array(key.publicKey.rawRepresentation) == hex(vector.derivedPublicKey))
    }

    @Test func thePublicSeedIsTheDraftsPointsAsPythonFido2ReadsThem() throws {
        let seed = try Self.seed().publicSeed
        #expect(seed.blindingKey == hex(Self.blindingPublicKey))
        #expect(seed.encapsulationKey == hex(Self.encapsulationPublicKey))
        let cbor = COSEKey.arkgP256(seed).cbor
        let map = try #require(cbor.mapValue)
        #expect(map[1] == CBORValue(-65537) && map[3] == CBORValue(-65700) && map[-3] == CBORValue(-9))
        #expect(map[-1]?.mapValue?[3] == CBORValue(-7), "python-fido2 parses the inner keys by their alg")
        #expect(map[-2]?.mapValue?[3] == CBORValue(-25))
        #expect(try COSEKey(cbor: cbor) == .arkgP256(seed))
    }

    @Test func aKeyHandleOpensOnlyWithItsSeedAndContext() throws {
        let seed = try Self.seed()
        let vector = Self.vectors[0]
        var tampered = hex(vector.keyHandle)
        tampered[3] ^= 1
        #expect(throws: CTAPStatus.invalidCredential) {
            try seed.derivePrivateKey(keyHandle: tampered, context: Array(vector.context.utf8))
        }
        #expect(throws: CTAPStatus.invalidCredential) {
            try seed.derivePrivateKey(keyHandle: hex(vector.keyHandle), context: Array("other".utf8))
        }
        #expect(throws: CTAPStatus.invalidCredential) {
            try ARKGP256PrivateSeed.generate().derivePrivateKey(
                keyHandle: hex(vector.keyHandle), context: Array(vector.context.utf8))
        }
        #expect(throws: CTAPStatus.invalidCredential) {
            try seed.derivePrivateKey(keyHandle: Array(hex(vector.keyHandle).dropLast()), context: [])
        }
        #expect(throws: CTAPStatus.invalidCredential) {
            try seed.derivePrivateKey(keyHandle: hex(vector.keyHandle), context: [UInt8](repeating: 0x41, count: 65))
        }
    }

    @Test func expandMessageXMDMatchesRFC9380() {
        let dst = Array("QUUX-V01-CS02-with-expander-SHA256-128".utf8)
        #expect(
            HashToField.expandMessageXMD([], dst: dst, length: 0x20)
                == hex("68a985b87eb6b46952128911f2a4412bbc302a9d759667f87f7a21d803f07235"))
        #expect(
            HashToField.expandMessageXMD(Array("abc".utf8), dst: dst, length: 0x80)
                == hex(
                    "abba86a6129e366fc877aab32fc4ffc70120d8996c88aee2fe4b32d6c7b6437a647e6c3163d40b76a73cf6a5674ef1d890f95b664ee0afa5359a5c4e07985635"
                        + "bbecbac65d747d3d2da7ec2b8221b17b0ca9dc8a1ac1c07ea6a1e60583e2cb00058e77b7b72a298425cd1b941ad4ec65e8afc50303a22c0f99b0509b4c895f40"
                ))
    }

    @Test func scalarsReduceAndAddModuloTheOrder() {
        let n = hex("ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551")
        #expect(P256Scalar(reducing: n).isZero)
        #expect(
            P256Scalar(reducing: [UInt8](repeating: 0xFF, count: 48)).bigEndianBytes
                == hex("431905529c0166ce652e96b7ccca0a99679b73e19ad16947f01cf013fc632550"),
            "(2^384 - 1) mod n, from python")
        var nMinusOne = n
        nMinusOne[31] -= 1
        #expect((P256Scalar(reducing: nMinusOne) + P256Scalar(reducing: [1])).isZero)
        #expect(
            (P256Scalar(reducing: nMinusOne) + P256Scalar(reducing: nMinusOne)).bigEndianBytes
                == {
                    var twoLess = n
                    twoLess[31] -= 2
                    return twoLess
                }())
        #expect(P256Scalar(reducing: [2, 0]).bigEndianBytes == [UInt8](repeating: 0, count: 30) + [2, 0])
    }
}
