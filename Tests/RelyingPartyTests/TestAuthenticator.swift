import CBOR
import CTAP
import Crypto
import CryptoExtras
import Foundation
import MLDSA
import Secp256k1
import WebAuthn

/// A tiny authenticator and client in one, to build responses the verifier is checked against;
/// every parameter is a knob for one tampering.
struct TestAuthenticator {
    enum Key {
        case p256(P256.Signing.PrivateKey)
        case ed25519(Curve25519.Signing.PrivateKey)
        case p384(P384.Signing.PrivateKey)
        case p521(P521.Signing.PrivateKey)
        /// RS256 or PS256.
        case rsa(_RSA.Signing.PrivateKey, COSEAlgorithm)
        /// ML-DSA-44 through the project's own FIPS 204 module.
        case mldsa44(MLDSAPrivateKey)
        case mldsa65(MLDSA65.PrivateKey)
        case mldsa87(MLDSA87.PrivateKey)
        /// ES256K: a secp256k1 scalar, signed through libsecp256k1.
        case secp256k1([UInt8])
    }

    /// The attestation statement to put in the attestation object.
    enum Attestation {
        case none
        case packedSelf
        case packedSelfWithAlgorithm(Int)
        case packedWithCertificate
        case custom(format: String, statement: CBORValue)
    }

    var key: Key
    var credentialID: [UInt8] = (0..<32).map { _ in UInt8.random(in: 0...255) }
    var userHandle: [UInt8] = Array("user-1".utf8)

    static func es256() -> TestAuthenticator { TestAuthenticator(key: .p256(P256.Signing.PrivateKey())) }
    static func ed25519() -> TestAuthenticator { TestAuthenticator(key: .ed25519(Curve25519.Signing.PrivateKey())) }
    static func es384() -> TestAuthenticator { TestAuthenticator(key: .p384(P384.Signing.PrivateKey())) }
    static func es512() -> TestAuthenticator { TestAuthenticator(key: .p521(P521.Signing.PrivateKey())) }
    static func rsa(_ algorithm: COSEAlgorithm) -> TestAuthenticator {
        TestAuthenticator(key: .rsa(try! _RSA.Signing.PrivateKey(keySize: .bits2048), algorithm))
    }
    static func mldsa44() -> TestAuthenticator {
        TestAuthenticator(key: .mldsa44(MLDSAPrivateKey(parameters: .mldsa44)))
    }
    static func mldsa65() -> TestAuthenticator { TestAuthenticator(key: .mldsa65(try! MLDSA65.PrivateKey())) }
    static func mldsa87() -> TestAuthenticator { TestAuthenticator(key: .mldsa87(try! MLDSA87.PrivateKey())) }
    static func es256K() -> TestAuthenticator { TestAuthenticator(key: .secp256k1(Secp256k1.generatePrivateKey())) }

    var publicKey: COSEKey {
        switch key {
        case .p256(let k):
            let raw = Array(k.publicKey.rawRepresentation)
            return .p256(x: Array(raw[0..<32]), y: Array(raw[32...]), algorithm: .es256)
        case .ed25519(let k):
            return .ed25519(x: Array(k.publicKey.rawRepresentation))
        case .p384(let k):
            let raw = Array(k.publicKey.rawRepresentation)
            return .p384(x: Array(raw[0..<48]), y: Array(raw[48...]))
        case .p521(let k):
            let raw = Array(k.publicKey.rawRepresentation)
            return .p521(x: Array(raw[0..<66]), y: Array(raw[66...]))
        case .rsa(let k, let algorithm):
            let primitives = try! k.publicKey.getKeyPrimitives()
            return .rsa(n: Array(primitives.modulus), e: Array(primitives.publicExponent), algorithm: algorithm)
        case .mldsa44(let k):
            return .mldsa(publicKey: k.publicKey.rawRepresentation, algorithm: .mldsa44)
        case .mldsa65(let k):
            return .mldsa(publicKey: Array(k.publicKey.rawRepresentation), algorithm: .mldsa65)
        case .mldsa87(let k):
            return .mldsa(publicKey: Array(k.publicKey.rawRepresentation), algorithm: .mldsa87)
        case .secp256k1(let k):
            let raw = try! Secp256k1.publicKey(privateKey: k)
            return .secp256k1(x: Array(raw[0..<32]), y: Array(raw[32...]))
        }
    }

    func sign(_ data: [UInt8]) -> [UInt8] {
        switch key {
        case .p256(let k): return Array(try! k.signature(for: data).derRepresentation)
        case .ed25519(let k): return Array(try! k.signature(for: data))
        case .p384(let k): return Array(try! k.signature(for: data).derRepresentation)
        case .p521(let k): return Array(try! k.signature(for: data).derRepresentation)
        case .rsa(let k, let algorithm):
            return Array(
                try! k.signature(for: data, padding: algorithm == .rs256 ? .insecurePKCS1v1_5 : .PSS).rawRepresentation)
        case .mldsa44(let k): return k.signature(for: data)
        case .mldsa65(let k): return Array(try! k.signature(for: data))
        case .mldsa87(let k): return Array(try! k.signature(for: data))
        case .secp256k1(let k): return try! Secp256k1.signature(for: data, privateKey: k)
        }
    }

    static func clientData(
        _ type: CollectedClientData.CeremonyType, challenge: [UInt8], origin: String,
        topOrigin: String?, crossOrigin: Bool? = nil
    ) -> [UInt8] {
        CollectedClientData(
            type: type, challenge: challenge, origin: origin,
            crossOrigin: crossOrigin ?? (topOrigin != nil), topOrigin: topOrigin
        ).serialized
    }

    func registration(
        challenge: [UInt8],
        type: CollectedClientData.CeremonyType = .create,
        origin: String = "https://example.com",
        topOrigin: String? = nil,
        crossOrigin: Bool? = nil,
        rpID: String = "example.com",
        flags: AuthenticatorData.Flags = [.userPresent, .userVerified],
        signCount: UInt32 = 0,
        attestation: Attestation = .packedSelf,
        corruptSignature: Bool = false
    ) -> RegistrationResponseJSON {
        let clientDataJSON = Self.clientData(
            type, challenge: challenge, origin: origin, topOrigin: topOrigin, crossOrigin: crossOrigin)
        let authData = AuthenticatorData(
            rpIDHash: Array(SHA256.hash(data: Array(rpID.utf8))), flags: flags, signCount: signCount,
            attestedCredentialData: AttestedCredentialData(
                aaguid: [UInt8](repeating: 0, count: 16),
                credentialID: credentialID, publicKey: publicKey)
        ).bytes
        var signature = sign(authData + Array(SHA256.hash(data: clientDataJSON)))
        if corruptSignature { signature[signature.count - 1] ^= 0x01 }
        let (format, statement): (String, CBORValue)
        switch attestation {
        case .none: (format, statement) = ("none", .map([:]))
        case .packedSelf:
            (format, statement) = (
                "packed", AttestationStatement.packed(alg: publicKey.algorithm.rawValue, sig: signature, x5c: nil).cbor
            )
        case .packedSelfWithAlgorithm(let alg):
            (format, statement) = ("packed", AttestationStatement.packed(alg: alg, sig: signature, x5c: nil).cbor)
        case .packedWithCertificate:
            (format, statement) = (
                "packed", AttestationStatement.packed(alg: -7, sig: signature, x5c: [[0x30, 0x00]]).cbor
            )
        case .custom(let f, let s): (format, statement) = (f, s)
        }
        let attestationObject: CBORValue = [
            "fmt": .textString(format), "authData": .byteString(authData), "attStmt": statement
        ]
        return RegistrationResponseJSON(
            id: Base64URL.encode(credentialID), rawId: credentialID,
            response: AuthenticatorAttestationResponseJSON(
                clientDataJSON: clientDataJSON, authenticatorData: authData, transports: ["internal"],
                publicKey: publicKey.subjectPublicKeyInfo, publicKeyAlgorithm: publicKey.algorithm.rawValue,
                attestationObject: attestationObject.encoded),
            authenticatorAttachment: .platform,
            clientExtensionResults: .init(credProps: .init(rk: true)))
    }

    func assertion(
        challenge: [UInt8],
        type: CollectedClientData.CeremonyType = .get,
        origin: String = "https://example.com",
        topOrigin: String? = nil,
        rpID: String = "example.com",
        flags: AuthenticatorData.Flags = [.userPresent, .userVerified],
        signCount: UInt32 = 1,
        userHandle: [UInt8]?? = .none,
        corruptSignature: Bool = false
    ) -> AuthenticationResponseJSON {
        let clientDataJSON = Self.clientData(type, challenge: challenge, origin: origin, topOrigin: topOrigin)
        let authData = AuthenticatorData(
            rpIDHash: Array(SHA256.hash(data: Array(rpID.utf8))), flags: flags,
            signCount: signCount
        ).bytes
        var signature = sign(authData + Array(SHA256.hash(data: clientDataJSON)))
        if corruptSignature { signature[signature.count - 1] ^= 0x01 }
        return AuthenticationResponseJSON(
            credentialID: credentialID, clientDataJSON: clientDataJSON, authenticatorData: authData,
            signature: signature, userHandle: userHandle ?? self.userHandle, authenticatorAttachment: .platform)
    }
}
