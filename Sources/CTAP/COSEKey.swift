import CBOR

/// COSE algorithm identifiers CTAP uses (IANA COSE Algorithms registry).
public enum COSEAlgorithm: Int, Sendable, Hashable, Codable, CaseIterable {
    /// ECDSA with SHA-256 on P-256.
    case es256 = -7
    /// EdDSA; with CTAP, always Ed25519.
    case edDSA = -8
    /// ECDH-ES + HKDF-256, the PIN/UV auth protocol key agreement (CTAP 2.1 §6.5.6).
    case ecdhESHKDF256 = -25
    /// ECDSA with SHA-384 on P-384.
    case es384 = -35
    /// ECDSA with SHA-512 on P-521.
    case es512 = -36
    /// ECDSA with SHA-256 on P-256, fully specified (RFC 9864): previewSign's key algorithm.
    case esp256 = -9
    /// RSASSA-PSS with SHA-256 (RFC 8230 §2).
    case ps256 = -37
    /// RSASSA-PKCS1-v1_5 with SHA-256 (RFC 8812 §2).
    case rs256 = -257
    /// ECDSA with SHA-256 on secp256k1 (RFC 8812 §3.2).
    case es256K = -47
    /// ML-DSA-44 (FIPS 204; COSE draft-ietf-cose-dilithium), pure, with an empty context.
    case mldsa44 = -48
    /// ML-DSA-65, likewise.
    case mldsa65 = -49
    /// ML-DSA-87, likewise.
    case mldsa87 = -50
    /// ARKG-P256 (draft-bradleylundberg-cfrg-arkg-10 §5.2, placeholder value): the alg of an
    /// ARKG public seed, which previewSign returns for ESP256-split-ARKG; never a credential's.
    case arkgP256 = -65700
}

/// A public key in COSE_Key form (RFC 9052 §7, RFC 9053 §7 and §2.1 for the curves).
public enum COSEKey: CBORMember, Sendable, Hashable {
    /// kty EC2 (2), crv P-256 (1), with the algorithm it is for.
    case p256(x: [UInt8], y: [UInt8], algorithm: COSEAlgorithm)
    /// kty EC2, crv P-384 (2), alg ES384; coordinates of 48 bytes.
    case p384(x: [UInt8], y: [UInt8])
    /// kty EC2, crv P-521 (3), alg ES512; coordinates of 66 bytes.
    case p521(x: [UInt8], y: [UInt8])
    /// kty OKP (1), crv Ed25519 (6), alg EdDSA.
    case ed25519(x: [UInt8])
    /// kty EC2, crv secp256k1 (8), alg ES256K (RFC 8812 §3.2); coordinates of 32 bytes.
    case secp256k1(x: [UInt8], y: [UInt8])
    /// kty RSA (3), RS256 or PS256: modulus n (-1) and public exponent e (-2), big-endian (RFC 8230 §4).
    case rsa(n: [UInt8], e: [UInt8], algorithm: COSEAlgorithm)
    /// kty AKP (7), ML-DSA-44, -65 or -87: the FIPS 204 public key as `pub` (-1) (draft-ietf-cose-dilithium).
    case mldsa(publicKey: [UInt8], algorithm: COSEAlgorithm)
    /// kty ARKG-pub, alg ARKG-P256: an ARKG public seed, from which others derive public keys
    /// the device can later sign for (draft-bradleylundberg-cfrg-arkg-10 §5.1).
    case arkgP256(ARKGPublicSeed)

    enum Label {
        static let kty: CBORValue = 1
        static let alg: CBORValue = 3
        static let crv: CBORValue = -1
        static let x: CBORValue = -2
        static let y: CBORValue = -3
        /// RSA's modulus and exponent (RFC 8230 §4).
        static let n: CBORValue = -1
        static let e: CBORValue = -2
        /// An AKP key's public key (ML-DSA, draft-ietf-cose-dilithium).
        static let pub: CBORValue = -1
    }

    public var algorithm: COSEAlgorithm {
        switch self {
        case .p256(_, _, let algorithm): return algorithm
        case .p384: return .es384
        case .p521: return .es512
        case .ed25519: return .edDSA
        case .secp256k1: return .es256K
        case .rsa(_, _, let algorithm), .mldsa(_, let algorithm): return algorithm
        case .arkgP256: return .arkgP256
        }
    }

    /// kty RSA's and AKP's algorithms, and their public key sizes (FIPS 204 Table 2 for ML-DSA).
    static let rsaAlgorithms: Set<COSEAlgorithm> = [.rs256, .ps256]
    public static let mldsaPublicKeyLengths: [COSEAlgorithm: Int] = [.mldsa44: 1312, .mldsa65: 1952, .mldsa87: 2592]

    public var cbor: CBORValue {
        switch self {
        case .p256(let x, let y, let algorithm):
            return [
                Label.kty: 2, Label.alg: CBORValue(algorithm.rawValue), Label.crv: 1, Label.x: .byteString(x),
                Label.y: .byteString(y)
            ]
        case .p384(let x, let y):
            return [
                Label.kty: 2, Label.alg: CBORValue(COSEAlgorithm.es384.rawValue), Label.crv: 2, Label.x: .byteString(x),
                Label.y: .byteString(y)
            ]
        case .p521(let x, let y):
            return [
                Label.kty: 2, Label.alg: CBORValue(COSEAlgorithm.es512.rawValue), Label.crv: 3, Label.x: .byteString(x),
                Label.y: .byteString(y)
            ]
        case .ed25519(let x):
            return [
                Label.kty: 1, Label.alg: CBORValue(COSEAlgorithm.edDSA.rawValue), Label.crv: 6, Label.x: .byteString(x)
            ]
        case .secp256k1(let x, let y):
            return [
                Label.kty: 2, Label.alg: CBORValue(COSEAlgorithm.es256K.rawValue), Label.crv: 8,
                Label.x: .byteString(x), Label.y: .byteString(y)
            ]
        case .rsa(let n, let e, let algorithm):
            return [
                Label.kty: 3, Label.alg: CBORValue(algorithm.rawValue), Label.n: .byteString(n), Label.e: .byteString(e)
            ]
        case .mldsa(let publicKey, let algorithm):
            return [Label.kty: 7, Label.alg: CBORValue(algorithm.rawValue), Label.pub: .byteString(publicKey)]
        case .arkgP256(let seed):
            return seed.cbor
        }
    }

    /// Parses a COSE_Key; anything other than a well-formed key of the kinds above is
    /// `CTAP2_ERR_UNSUPPORTED_ALGORITHM`, shape errors as `CBORMap` reports them.
    public init(cbor: CBORValue) throws(CTAPStatus) {
        let map = try CBORMap(cbor)
        let kty = try map.required(Label.kty, CBORRead.int)
        let alg = try map.optional(Label.alg, CBORRead.int)
        // Labels below 0 are key-type specific (RFC 9052 §7.1), so kty decides how to read them.
        switch kty {
        case 3:
            guard let algorithm = alg.flatMap(COSEAlgorithm.init(rawValue:)), Self.rsaAlgorithms.contains(algorithm)
            else {
                throw .unsupportedAlgorithm
            }
            let n = try map.required(Label.n, CBORRead.bytes)
            let e = try map.required(Label.e, CBORRead.bytes)
            guard !n.isEmpty, !e.isEmpty else { throw .invalidParameter }
            self = .rsa(n: n, e: e, algorithm: algorithm)
            return
        case 7:
            guard let algorithm = alg.flatMap(COSEAlgorithm.init(rawValue:)),
                let length = Self.mldsaPublicKeyLengths[algorithm]
            else {
                throw .unsupportedAlgorithm
            }
            let publicKey = try map.required(Label.pub, CBORRead.bytes)
            guard publicKey.count == length else { throw .invalidParameter }
            self = .mldsa(publicKey: publicKey, algorithm: algorithm)
            return
        case ARKGPublicSeed.keyType:
            self = .arkgP256(try ARKGPublicSeed(map))
            return
        case 1, 2:
            break
        default:
            throw .unsupportedAlgorithm
        }
        let crv = try map.required(Label.crv, CBORRead.int)
        let x = try map.required(Label.x, CBORRead.bytes)
        switch (kty, crv) {
        case (2, 1):
            let y = try map.required(Label.y, CBORRead.bytes)
            guard x.count == 32, y.count == 32 else { throw .invalidParameter }
            let algorithm = alg.flatMap(COSEAlgorithm.init(rawValue:)) ?? .es256
            guard [.es256, .esp256, .ecdhESHKDF256].contains(algorithm) else { throw .unsupportedAlgorithm }
            self = .p256(x: x, y: y, algorithm: algorithm)
        case (2, 2), (2, 3):
            let y = try map.required(Label.y, CBORRead.bytes)
            let size = crv == 2 ? 48 : 66
            guard x.count == size, y.count == size else { throw .invalidParameter }
            let expected: COSEAlgorithm = crv == 2 ? .es384 : .es512
            guard alg == nil || alg == expected.rawValue else { throw .unsupportedAlgorithm }
            self = crv == 2 ? .p384(x: x, y: y) : .p521(x: x, y: y)
        case (2, 8):
            let y = try map.required(Label.y, CBORRead.bytes)
            guard x.count == 32, y.count == 32 else { throw .invalidParameter }
            guard alg == nil || alg == COSEAlgorithm.es256K.rawValue else { throw .unsupportedAlgorithm }
            self = .secp256k1(x: x, y: y)
        case (1, 6):
            guard x.count == 32 else { throw .invalidParameter }
            guard alg == nil || alg == COSEAlgorithm.edDSA.rawValue else { throw .unsupportedAlgorithm }
            self = .ed25519(x: x)
        default:
            throw .unsupportedAlgorithm
        }
    }
}
