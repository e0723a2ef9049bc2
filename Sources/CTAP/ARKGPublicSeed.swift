import CBOR
import PasskeydMacros

/// An ARKG-P256 public seed as a COSE_Key (draft-bradleylundberg-cfrg-arkg-10 §5.1): kty ARKG-pub
/// (placeholder -65537), alg ARKG-P256 (placeholder -65700), the key-blinding public key `pkbl`
/// (-1) and the key-encapsulation public key `pkkem` (-2) as P-256 COSE keys, and `dkalg` (-3),
/// the algorithm of the keys derived from it. The inner keys carry alg ES256 and
/// ECDH-ES+HKDF-256, which is how python-fido2 2.2.1 reads them (it picks a key's class by alg).
@MemberwiseInit
public struct ARKGPublicSeed: Sendable, Hashable {
    /// kty ARKG-pub, a placeholder until IANA assigns one (§8.1).
    public static let keyType = -65537

    /// The blinding public key's x ‖ y (32 + 32 bytes).
    public var blindingKey: [UInt8]
    /// The encapsulation public key's x ‖ y.
    public var encapsulationKey: [UInt8]
    /// The alg of derived keys; absent when the seed does not restrict it.
    public var derivedKeyAlgorithm: COSEAlgorithm?

    /// Reads the members after `COSEKey` has seen kty ARKG-pub: an alg other than ARKG-P256, an
    /// inner key that is not a P-256 point, or an unknown dkalg is `CTAP2_ERR_UNSUPPORTED_ALGORITHM`.
    init(_ map: CBORMap) throws(CTAPStatus) {
        guard try map.required(Key.alg, CBORRead.int) == COSEAlgorithm.arkgP256.rawValue else {
            throw .unsupportedAlgorithm
        }
        blindingKey = try Self.point(try map.required(Key.pkbl, CBORRead.any))
        encapsulationKey = try Self.point(try map.required(Key.pkkem, CBORRead.any))
        if let dkalg = try map.optional(Key.dkalg, CBORRead.int) {
            guard let algorithm = COSEAlgorithm(rawValue: dkalg) else { throw .unsupportedAlgorithm }
            derivedKeyAlgorithm = algorithm
        }
    }

    /// The seed's COSE labels (§5.1), the only place they are written.
    enum Key: Int, CodingKey {
        case kty = 1
        case alg = 3
        case pkbl = -1
        case pkkem = -2
        case dkalg = -3
    }

    var cbor: CBORValue {
        .keyed(
            Key.self,
            [
                (.kty, CBORValue(Self.keyType)),
                (.alg, CBORValue(COSEAlgorithm.arkgP256.rawValue)),
                (.pkbl, Self.key(blindingKey, .es256).cbor),
                (.pkkem, Self.key(encapsulationKey, .ecdhESHKDF256).cbor),
                (.dkalg, derivedKeyAlgorithm.map { CBORValue($0.rawValue) })
            ])
    }

    private static func key(_ point: [UInt8], _ algorithm: COSEAlgorithm) -> COSEKey {
        .p256(x: Array(point.prefix(32)), y: Array(point.dropFirst(32)), algorithm: algorithm)
    }

    private static func point(_ value: CBORValue) throws(CTAPStatus) -> [UInt8] {
        guard case .p256(let x, let y, _) = try COSEKey(cbor: value) else { throw .unsupportedAlgorithm }
        return x + y
    }
}
