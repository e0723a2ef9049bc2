import CTAP
import Crypto
import CryptoExtras
import Foundation
import MLDSA
import Secp256k1

/// A credential private key of one of the supported algorithms.
///
/// `rawRepresentation` is what the keystore and the wrapped credential ID keep: the EC scalar
/// (ES256K's used through libsecp256k1), the Ed25519 seed, the ML-DSA seed (32 bytes, FIPS 204
/// §6.1 ξ), or for RSA the modulus and private exponent, 256 bytes each (the primes are
/// recovered from them when signing).
struct CredentialKey: Sendable {
    let algorithm: COSEAlgorithm
    let rawRepresentation: [UInt8]
    /// A P-256 key as made by `generate`, public point included: its public key and the self
    /// attestation's signature then cost no second scalar multiplication to import it again.
    private let p256: P256KeyPair?

    /// RS256 and PS256 keys: 2048-bit moduli, public exponent 65537.
    static let rsaModulusBytes = 256
    static let rsaPublicExponent: [UInt8] = [0x01, 0x00, 0x01]

    /// Generates a fresh key, on the global pool when that may take long: an RSA key is a
    /// search for primes, tens to hundreds of milliseconds, and a registration otherwise runs
    /// on the daemon's event loop, which must keep sending keepalives meanwhile (CTAP 2.1
    /// §11.2.9.2.1: at least every 100 ms).
    static func generating(_ algorithm: COSEAlgorithm) async throws(CTAPStatus) -> CredentialKey {
        switch algorithm {
        case .rs256, .ps256:
            try await withTaskExecutorPreference(globalConcurrentExecutor) { () throws(CTAPStatus) in
                try generate(algorithm)
            }
        default: try generate(algorithm)
        }
    }

    /// Generates a fresh key; only signature algorithms are valid here.
    static func generate(_ algorithm: COSEAlgorithm) throws(CTAPStatus) -> CredentialKey {
        let raw: [UInt8]
        do {
            switch algorithm {
            case .es256, .esp256:
                let pair = try P256KeyReserve.shared.take() ?? Self.generateP256()
                return CredentialKey(algorithm: algorithm, rawRepresentation: pair.scalar, p256: pair)
            case .es384: raw = Array(P384.Signing.PrivateKey().rawRepresentation)
            case .es512: raw = Array(P521.Signing.PrivateKey().rawRepresentation)
            case .edDSA: raw = Array(Curve25519.Signing.PrivateKey().rawRepresentation)
            case .es256K: raw = Secp256k1.generatePrivateKey()
            case .mldsa44: raw = MLDSAPrivateKey(parameters: .mldsa44).seed
            case .mldsa65: raw = Array(try MLDSA65.PrivateKey().seedRepresentation)
            case .mldsa87: raw = Array(try MLDSA87.PrivateKey().seedRepresentation)
            case .rs256, .ps256:
                let key = try _RSA.Signing.PrivateKey(keySize: .bits2048)
                let primitives = try key.publicKey.getKeyPrimitives()
                guard let d = Self.privateExponent(of: key) else { throw CTAPStatus.other }
                raw = Self.padded(Array(primitives.modulus)) + d
            case .ecdhESHKDF256, .arkgP256: throw CTAPStatus.unsupportedAlgorithm
            }
        } catch let status as CTAPStatus {
            throw status
        } catch {
            throw .other
        }
        return CredentialKey(algorithm: algorithm, rawRepresentation: raw)
    }

    init(algorithm: COSEAlgorithm, rawRepresentation: [UInt8]) {
        self.init(algorithm: algorithm, rawRepresentation: rawRepresentation, p256: nil)
    }

    private init(algorithm: COSEAlgorithm, rawRepresentation: [UInt8], p256: P256KeyPair?) {
        self.algorithm = algorithm
        self.rawRepresentation = rawRepresentation
        self.p256 = p256
    }

    /// A P-256 private key: a uniformly random scalar in [1, n−1] by rejection sampling (FIPS
    /// 186-5 §A.2.2), 32 bytes from the system's CSPRNG (`SecureRandom`, zeroed once imported);
    /// the public point is computed once, on import.
    /// Why not `P256.Signing.PrivateKey()`: swift-crypto's generator runs BoringSSL's FIPS
    /// self-test on every key (a check of the public point, and a pairwise sign-and-verify) and
    /// by default retries until the point is compact-representable (half of all keys), about ten
    /// scalar multiplications per key, the largest cost of a registration (docs/benchmarks.md).
    /// The import refuses 0 and scalars ≥ n (probability 2⁻³²), which are drawn again.
    static func generateP256() throws(CTAPStatus) -> P256KeyPair {
        var scalar = [UInt8](repeating: 0, count: 32)
        defer { scalar.withUnsafeMutableBytes { _ = $0.initializeMemory(as: UInt8.self, repeating: 0) } }
        for _ in 0..<8 {
            scalar.withUnsafeMutableBytes(SecureRandom.fill)
            if let key = try? P256.Signing.PrivateKey(rawRepresentation: scalar) {
                let (x, y) = coordinates(key.publicKey.rawRepresentation)
                return P256KeyPair(key: key, scalar: Array(key.rawRepresentation), x: x, y: y)
            }
        }
        throw .other
    }

    func publicKey() throws(CTAPStatus) -> COSEKey {
        do {
            switch algorithm {
            case .es256, .esp256:
                if let p256 { return .p256(x: p256.x, y: p256.y, algorithm: algorithm) }
                let (x, y) = Self.coordinates(
                    try P256.Signing.PrivateKey(rawRepresentation: rawRepresentation).publicKey.rawRepresentation)
                return .p256(x: x, y: y, algorithm: algorithm)
            case .es384:
                let (x, y) = Self.coordinates(
                    try P384.Signing.PrivateKey(rawRepresentation: rawRepresentation).publicKey.rawRepresentation)
                return .p384(x: x, y: y)
            case .es512:
                let (x, y) = Self.coordinates(
                    try P521.Signing.PrivateKey(rawRepresentation: rawRepresentation).publicKey.rawRepresentation)
                return .p521(x: x, y: y)
            case .edDSA:
                return .ed25519(
                    x: Array(
                        try Curve25519.Signing.PrivateKey(rawRepresentation: rawRepresentation).publicKey
                            .rawRepresentation))
            case .es256K:
                let (x, y) = Self.coordinates(try Secp256k1.publicKey(privateKey: rawRepresentation))
                return .secp256k1(x: x, y: y)
            case .mldsa44:
                return .mldsa(
                    publicKey: try MLDSAPrivateKey(seed: rawRepresentation, parameters: .mldsa44).publicKey
                        .rawRepresentation, algorithm: algorithm)
            case .mldsa65:
                return .mldsa(
                    publicKey: Array(
                        try MLDSA65.PrivateKey(seedRepresentation: rawRepresentation, publicKey: nil).publicKey
                            .rawRepresentation), algorithm: algorithm)
            case .mldsa87:
                return .mldsa(
                    publicKey: Array(
                        try MLDSA87.PrivateKey(seedRepresentation: rawRepresentation, publicKey: nil).publicKey
                            .rawRepresentation), algorithm: algorithm)
            case .rs256, .ps256:
                return .rsa(
                    n: Array(rawRepresentation.prefix(Self.rsaModulusBytes)), e: Self.rsaPublicExponent,
                    algorithm: algorithm)
            case .ecdhESHKDF256, .arkgP256:
                throw CTAPStatus.unsupportedAlgorithm
            }
        } catch {
            throw .other
        }
    }

    /// Signs `message` as WebAuthn L3 §6.5.5 says: the ECDSA algorithms as DER signatures over
    /// SHA-256 / SHA-384 / SHA-512 of the message (ES256K over SHA-256 on secp256k1), EdDSA as
    /// the raw 64-byte Ed25519 signature, RS256 / PS256 as RSASSA-PKCS1-v1_5 / RSASSA-PSS (salt
    /// of 32 bytes) over SHA-256, and ML-DSA as the pure FIPS 204 signature with an empty context.
    func sign(_ message: [UInt8]) throws(CTAPStatus) -> [UInt8] {
        do {
            switch algorithm {
            case .es256, .esp256:
                let key = try p256?.key ?? P256.Signing.PrivateKey(rawRepresentation: rawRepresentation)
                return Array(try key.signature(for: message).derRepresentation)
            case .es384:
                return Array(
                    try P384.Signing.PrivateKey(rawRepresentation: rawRepresentation).signature(for: message)
                        .derRepresentation)
            case .es512:
                return Array(
                    try P521.Signing.PrivateKey(rawRepresentation: rawRepresentation).signature(for: message)
                        .derRepresentation)
            case .edDSA:
                return Array(
                    try Curve25519.Signing.PrivateKey(rawRepresentation: rawRepresentation).signature(for: message))
            case .es256K:
                return try Secp256k1.signature(for: message, privateKey: rawRepresentation)
            case .mldsa44:
                return try MLDSAPrivateKey(seed: rawRepresentation, parameters: .mldsa44).signature(for: message)
            case .mldsa65:
                return Array(
                    try MLDSA65.PrivateKey(seedRepresentation: rawRepresentation, publicKey: nil).signature(
                        for: message))
            case .mldsa87:
                return Array(
                    try MLDSA87.PrivateKey(seedRepresentation: rawRepresentation, publicKey: nil).signature(
                        for: message))
            case .rs256, .ps256:
                let key = try _RSA.Signing.PrivateKey._createFromNumbers(
                    n: rawRepresentation.prefix(Self.rsaModulusBytes), e: Self.rsaPublicExponent,
                    d: rawRepresentation.dropFirst(Self.rsaModulusBytes))
                let padding: _RSA.Signing.Padding = algorithm == .rs256 ? .insecurePKCS1v1_5 : .PSS
                return Array(try key.signature(for: message, padding: padding).rawRepresentation)
            case .ecdhESHKDF256, .arkgP256:
                throw CTAPStatus.unsupportedAlgorithm
            }
        } catch {
            throw .other
        }
    }

    /// The x and y halves of an uncompressed point without its prefix (swift-crypto's raw form).
    private static func coordinates(_ raw: some DataProtocol) -> ([UInt8], [UInt8]) {
        let bytes = Array(raw)
        return (Array(bytes[..<(bytes.count / 2)]), Array(bytes[(bytes.count / 2)...]))
    }

    /// A big-endian integer left-padded (or stripped of DER's sign byte) to the modulus size.
    private static func padded(_ integer: [UInt8]) -> [UInt8] {
        let trimmed = Array(integer.drop { $0 == 0 })
        return [UInt8](repeating: 0, count: max(0, rsaModulusBytes - trimmed.count)) + trimmed
    }

    /// d, the fourth INTEGER of PKCS #1's RSAPrivateKey (RFC 8017 §A.1.2), which swift-crypto
    /// does not expose otherwise; nil if the DER is not that shape.
    private static func privateExponent(of key: _RSA.Signing.PrivateKey) -> [UInt8]? {
        var der = ArraySlice(Array(key.derRepresentation))
        guard var body = Self.readTLV(&der, tag: 0x30) else { return nil }
        var integers: [[UInt8]] = []
        while integers.count < 4, let value = Self.readTLV(&body, tag: 0x02) { integers.append(Array(value)) }
        return integers.count == 4 ? padded(integers[3]) : nil
    }

    /// Reads one DER TLV with `tag` from the front of `bytes`: its contents, and `bytes` advanced past it.
    private static func readTLV(_ bytes: inout ArraySlice<UInt8>, tag: UInt8) -> ArraySlice<UInt8>? {
        guard bytes.count >= 2, bytes.first == tag else { return nil }
        var index = bytes.startIndex + 1
        var length = Int(bytes[index])
        index += 1
        if length & 0x80 != 0 {
            let count = length & 0x7F
            guard count <= 3, bytes.endIndex - index >= count else { return nil }
            length = bytes[index..<index + count].reduce(0) { $0 << 8 | Int($1) }
            index += count
        }
        guard bytes.endIndex - index >= length else { return nil }
        let contents = bytes[index..<index + length]
        bytes = bytes[(index + length)...]
        return contents
    }
}

/// A P-256 key as `CredentialKey.generateP256` makes it, with what a registration reads of it
/// computed once: its scalar, and its public point's coordinates (an affine conversion, ~7 µs,
/// done ahead with the key when it comes from `P256KeyReserve`).
struct P256KeyPair: Sendable {
    let key: P256.Signing.PrivateKey
    let scalar: [UInt8]
    let x: [UInt8]
    let y: [UInt8]
}
