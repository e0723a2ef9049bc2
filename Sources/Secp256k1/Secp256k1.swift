import CSecp256k1
import Crypto

/// ES256K (RFC 8812 §3.2): ECDSA on secp256k1 over SHA-256, through bitcoin-core's libsecp256k1
/// (Debian's libsecp256k1-dev; docs/algorithms.md says why this library). Keys are 32-byte
/// scalars and x ‖ y coordinates of 32 bytes each; signatures are DER, as WebAuthn L3 §6.5.5
/// asks of ECDSA. Each call has its own context, so nothing is shared between threads.
public enum Secp256k1 {
    public enum Failure: Error, Sendable {
        case invalidPrivateKey, invalidPublicKey
    }

    /// A fresh private key: 32 random bytes, drawn again in the negligible case that they are 0
    /// or not below the group order.
    public static func generatePrivateKey() -> [UInt8] {
        withContext { context in
            while true {
                let candidate = SymmetricKey(size: .bits256).withUnsafeBytes { Array($0) }
                if secp256k1_ec_seckey_verify(context, candidate) == 1 { return candidate }
            }
        }
    }

    /// The public key of `privateKey` as x ‖ y.
    public static func publicKey(privateKey: [UInt8]) throws(Failure) -> [UInt8] {
        guard privateKey.count == 32 else { throw .invalidPrivateKey }
        let point: [UInt8]? = withContext { context in
            var key = secp256k1_pubkey()
            guard secp256k1_ec_pubkey_create(context, &key, privateKey) == 1 else { return nil }
            var out = [UInt8](repeating: 0, count: 65)
            var length = out.count
            guard secp256k1_ec_pubkey_serialize(context, &out, &length, &key, UInt32(SECP256K1_EC_UNCOMPRESSED)) == 1
            else { return nil }
            return Array(out.dropFirst())
        }
        guard let point else { throw .invalidPrivateKey }
        return point
    }

    /// The DER signature over SHA-256(message), low-S and with RFC 6979 nonces (the library's default),
    /// from a context randomised against side channels.
    public static func signature(for message: [UInt8], privateKey: [UInt8]) throws(Failure) -> [UInt8] {
        guard privateKey.count == 32 else { throw .invalidPrivateKey }
        let digest = Array(SHA256.hash(data: message))
        let der: [UInt8]? = withContext { context in
            let seed = SymmetricKey(size: .bits256).withUnsafeBytes { Array($0) }
            guard secp256k1_context_randomize(context, seed) == 1 else { return nil }
            var signature = secp256k1_ecdsa_signature()
            guard secp256k1_ecdsa_sign(context, &signature, digest, privateKey, nil, nil) == 1 else { return nil }
            var out = [UInt8](repeating: 0, count: 72)
            var length = out.count
            guard secp256k1_ecdsa_signature_serialize_der(context, &out, &length, &signature) == 1 else { return nil }
            return Array(out.prefix(length))
        }
        guard let der else { throw .invalidPrivateKey }
        return der
    }

    /// Whether `der` is a valid signature over SHA-256(message) by x ‖ y. A high-S signature is
    /// normalised first: ECDSA accepts both forms, only libsecp256k1's verifier insists on low S.
    public static func isValidSignature(_ der: [UInt8], for message: [UInt8], publicKey: [UInt8]) throws(Failure)
        -> Bool
    {
        guard publicKey.count == 64 else { throw .invalidPublicKey }
        let digest = Array(SHA256.hash(data: message))
        let outcome: Bool? = withContext { context in
            var key = secp256k1_pubkey()
            guard secp256k1_ec_pubkey_parse(context, &key, [4] + publicKey, 65) == 1 else { return nil }
            var parsed = secp256k1_ecdsa_signature()
            guard secp256k1_ecdsa_signature_parse_der(context, &parsed, der, der.count) == 1 else { return false }
            var normalized = secp256k1_ecdsa_signature()
            secp256k1_ecdsa_signature_normalize(context, &normalized, &parsed)
            return secp256k1_ecdsa_verify(context, &normalized, digest, &key) == 1
        }
        guard let outcome else { throw .invalidPublicKey }
        return outcome
    }

    private static func withContext<T>(_ body: (OpaquePointer) -> T) -> T {
        let context = secp256k1_context_create(UInt32(SECP256K1_CONTEXT_NONE))!
        defer { secp256k1_context_destroy(context) }
        return body(context)
    }
}
