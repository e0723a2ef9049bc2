import CTAP
import Crypto

/// A previewSign signing key: a P-256 key, or for ESP256-split-ARKG an ARKG-P256 private seed
/// from which each signature's key is derived.
enum PreviewSignKey: Sendable {
    case p256(P256.Signing.PrivateKey)
    case arkgP256(ARKGP256PrivateSeed)

    enum Kind: Sendable {
        case p256, arkgP256
    }

    static func generate(_ kind: Kind) -> PreviewSignKey {
        switch kind {
        case .p256: .p256(P256.Signing.PrivateKey())
        case .arkgP256: .arkgP256(.generate())
        }
    }

    /// The key a handle sealed; nil when the bytes are not a key of `kind`.
    init?(_ kind: Kind, rawRepresentation raw: [UInt8]) {
        switch kind {
        case .p256:
            guard raw.count == 32, let key = try? P256.Signing.PrivateKey(rawRepresentation: raw) else { return nil }
            self = .p256(key)
        case .arkgP256:
            guard let seed = try? ARKGP256PrivateSeed(rawRepresentation: raw) else { return nil }
            self = .arkgP256(seed)
        }
    }

    var rawRepresentation: [UInt8] {
        switch self {
        case .p256(let key): Array(key.rawRepresentation)
        case .arkgP256(let seed): seed.rawRepresentation
        }
    }

    /// The generated key's COSE form: the P-256 public key, or the ARKG public seed.
    func publicKey(_ algorithm: PreviewSignAlgorithm) -> COSEKey {
        switch self {
        case .p256(let key):
            let point = Array(key.publicKey.rawRepresentation)
            return .p256(
                x: Array(point.prefix(32)), y: Array(point.dropFirst(32)), algorithm: algorithm.publicKeyAlgorithm)
        case .arkgP256(let seed):
            return .arkgP256(seed.publicSeed)
        }
    }

    /// Signs the RP's `tbs` as `algorithm` says, as a DER ECDSA signature. A digest that is not
    /// 32 bytes is `CTAP1_ERR_INVALID_PARAMETER`. For ESP256-split-ARKG, absent arguments are
    /// `CTAP2_ERR_MISSING_PARAMETER`, and arguments that do not name ESP256-split-ARKG with a kh
    /// and ctx this seed derives a key from are `CTAP2_ERR_INVALID_CREDENTIAL`.
    func sign(_ tbs: [UInt8], as algorithm: PreviewSignAlgorithm, arguments: COSESignArgs?) throws(CTAPStatus)
        -> [UInt8]
    {
        let signer: P256.Signing.PrivateKey
        switch self {
        case .p256(let key):
            signer = key
        case .arkgP256(let seed):
            guard let arguments else { throw .missingParameter }
            guard arguments.algorithm == algorithm.rawValue, let keyHandle = arguments.arkgKeyHandle,
                let context = arguments.arkgContext
            else {
                throw .invalidCredential
            }
            signer = try seed.derivePrivateKey(keyHandle: keyHandle, context: context)
        }
        do {
            guard algorithm.signsDigest else { return Array(try signer.signature(for: tbs).derRepresentation) }
            guard tbs.count == SHA256Prehash.byteCount else { throw CTAPStatus.invalidParameter }
            return Array(try signer.signature(for: SHA256Prehash(tbs)).derRepresentation)
        } catch let status as CTAPStatus {
            throw status
        } catch {
            throw .other
        }
    }
}

/// A SHA-256 digest computed by someone else (the RP, for the split algorithms), so swift-crypto
/// signs it as it is instead of hashing it again.
struct SHA256Prehash: Digest {
    static let byteCount = 32
    private let bytes: [UInt8]

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try bytes.withUnsafeBytes(body)
    }

    func makeIterator() -> IndexingIterator<[UInt8]> {
        bytes.makeIterator()
    }
}
