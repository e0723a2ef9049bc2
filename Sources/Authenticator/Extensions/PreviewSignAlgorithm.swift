import CTAP

/// The signing algorithms previewSign generates keys for (WebAuthn signing extension v4 as
/// python-fido2 2.2.1 speaks it), by their COSE identifiers, in the terms the device needs:
/// the byte naming each inside a key handle, what the RP's data to sign is, and the key it uses.
enum PreviewSignAlgorithm: Int, CaseIterable, Sendable {
    /// ESP256 (RFC 9864 §2.1): ECDSA on P-256 over SHA-256 of the data.
    case esp256 = -9
    /// ES256: the same signature under the curve-unspecific name.
    case es256 = -7
    /// ESP256-split (draft-lundberg-cose-two-party-signing-algs-06 §3.1): the RP hashes the data
    /// with SHA-256 and the device signs that digest; the signature verifies as ESP256.
    case esp256Split = -300
    /// ESP256-split under the placeholder value earlier prototypes used.
    case esp256SplitPrototype = -70009
    /// ESP256-split-ARKG (draft-bradleylundberg-cfrg-arkg-10 §5.2, placeholder value): ESP256-split
    /// with a private key the device derives by ARKG-P256 from the kh and ctx the RP sends.
    case esp256SplitARKG = -65539

    private struct Properties {
        /// ESP256 and ES256 keep the bytes their handles had before the split algorithms came.
        let handleByte: UInt8
        let signsDigest: Bool
        let key: PreviewSignKey.Kind
    }

    private var properties: Properties {
        switch self {
        case .esp256: Properties(handleByte: 1, signsDigest: false, key: .p256)
        case .es256: Properties(handleByte: 2, signsDigest: false, key: .p256)
        case .esp256Split: Properties(handleByte: 3, signsDigest: true, key: .p256)
        case .esp256SplitPrototype: Properties(handleByte: 4, signsDigest: true, key: .p256)
        case .esp256SplitARKG: Properties(handleByte: 5, signsDigest: true, key: .arkgP256)
        }
    }

    var handleByte: UInt8 { properties.handleByte }
    /// Whether `tbs` is a SHA-256 digest the device signs as it is, rather than the message.
    var signsDigest: Bool { properties.signsDigest }
    var keyKind: PreviewSignKey.Kind { properties.key }
    /// The alg of the generated public key: a verifier checks the split algorithms' signatures as ESP256.
    var publicKeyAlgorithm: COSEAlgorithm { self == .es256 ? .es256 : .esp256 }

    init?(handleByte: UInt8) {
        guard let algorithm = Self.allCases.first(where: { $0.handleByte == handleByte }) else { return nil }
        self = algorithm
    }
}
