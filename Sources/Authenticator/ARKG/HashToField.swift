import Crypto

/// hash_to_field for P-256's scalar field with SHA-256 (RFC 9380 §5.2 with count = 1, m = 1,
/// L = 48 as the P256_XMD:SHA-256_SSWU_RO_ suite defines it, and expand_message_xmd of §5.3.1):
/// how ARKG-P256 turns key material into a blinding factor (draft-bradleylundberg-cfrg-arkg-10 §3.1, BL-PRF).
enum HashToField {
    /// L: ceil((ceil(log2(n)) + k) / 8) for k = 128 (RFC 9380 §5.1, §8.2).
    static let elementLength = 48

    /// One element of GF(n) from `message` under the domain separation tag `dst` (at most 255 bytes).
    static func p256Scalar(_ message: [UInt8], dst: [UInt8]) -> P256Scalar {
        P256Scalar(reducing: expandMessageXMD(message, dst: dst, length: elementLength))
    }

    /// expand_message_xmd with SHA-256 (§5.3.1), for outputs of at most 255 × 32 bytes.
    static func expandMessageXMD(_ message: [UInt8], dst: [UInt8], length: Int) -> [UInt8] {
        precondition(dst.count <= 255 && length <= 255 * 32, "RFC 9380 §5.3.1 step 2")
        let blocks = (length + 31) / 32
        let dstPrime = dst + [UInt8(dst.count)]
        // Step 6: Z_pad (the 64-byte SHA-256 block) ‖ msg ‖ I2OSP(len_in_bytes, 2) ‖ I2OSP(0, 1) ‖ DST_prime.
        let messagePrime =
            [UInt8](repeating: 0, count: 64) + message + [UInt8(length >> 8), UInt8(length & 0xFF), 0] + dstPrime
        let b0 = Array(SHA256.hash(data: messagePrime))
        var previous = Array(SHA256.hash(data: b0 + [1] + dstPrime))
        var output = previous
        for index in stride(from: 2, through: blocks, by: 1) {
            let mixed = zip(b0, previous).map { $0 ^ $1 }
            previous = Array(SHA256.hash(data: mixed + [UInt8(index)] + dstPrime))
            output += previous
        }
        return Array(output.prefix(length))
    }
}
