import CBOR
import PasskeydMacros

/// COSE_Sign_Args (draft-lundberg-cose-two-party-signing-algs-05 §4), the CBOR map previewSign
/// carries as its additional arguments: the algorithm (3) the signer is asked to use, and that
/// algorithm's parameters — for the ARKG algorithms the key handle `kh` (-1) and context `ctx`
/// (-2) of ARKG-Derive-Private-Key (draft-bradleylundberg-cfrg-arkg-10 §5.3). Other labels are
/// ignored; whether the members present suit the key is the signer's to judge.
@MemberwiseInit
public struct COSESignArgs: Sendable, Hashable {
    public var algorithm: Int?
    public var arkgKeyHandle: [UInt8]?
    public var arkgContext: [UInt8]?

    /// Reads the encoded map: bytes that are not one CBOR map are `CTAP2_ERR_INVALID_CBOR` or
    /// `CTAP2_ERR_CBOR_UNEXPECTED_TYPE`, a member of the wrong type the latter.
    public init(decoding bytes: [UInt8]) throws(CTAPStatus) {
        let map = try CBORMap(decoding: bytes)
        algorithm = try map.optional(Key.algorithm, CBORRead.int)
        arkgKeyHandle = try map.optional(Key.arkgKeyHandle, CBORRead.bytes)
        arkgContext = try map.optional(Key.arkgContext, CBORRead.bytes)
    }

    /// The map's labels, the only place they are written.
    enum Key: Int, CodingKey {
        case algorithm = 3
        case arkgKeyHandle = -1
        case arkgContext = -2
    }

    public var encoded: [UInt8] {
        CBORValue.keyed(
            Key.self,
            [
                (.algorithm, algorithm.map { CBORValue($0) }), (.arkgKeyHandle, arkgKeyHandle.map { .byteString($0) }),
                (.arkgContext, arkgContext.map { .byteString($0) })
            ]
        ).encoded
    }
}
