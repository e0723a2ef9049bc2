import CBOR
import CTAP
import Crypto

/// previewSign (WebAuthn signing extension draft, version 4, as python-fido2 2.2.1 speaks it):
/// makeCredential generates a signing key of its own for the credential, returned as a key
/// handle with its public key and attestation; getAssertion signs the RP's data with it.
///
/// Offered algorithms (`PreviewSignAlgorithm`): ESP256 (-9) and ES256 (-7) over the data,
/// ESP256-split (-300, and the prototypes' -70009) over the RP's SHA-256 digest, and
/// ESP256-split-ARKG (-65539), whose generated key is an ARKG-P256 public seed
/// (draft-bradleylundberg-cfrg-arkg-10). A request for none of them is CTAP2_ERR_UNSUPPORTED_ALGORITHM.
struct PreviewSignExtension: AuthenticatorExtension {
    typealias Wire = PreviewSign

    /// Checked before the credential exists, so a bad request creates nothing.
    func record(
        _ input: PreviewSignGenerateKey, on credential: inout CredentialExtensionState, _ creation: CredentialCreation
    ) throws(CTAPStatus) {
        _ = try Self.choice(input)
    }

    /// The generated key: its algorithm in authData, its attestation object (format `none`, the
    /// key handle as credential ID, the flags in its own authData's previewSign output) unsigned.
    func makeCredentialOutputs(_ input: PreviewSignGenerateKey, _ context: ExtensionContext) async throws(CTAPStatus)
        -> (signed: PreviewSignGeneratedKey?, unsigned: CBORValue?)
    {
        let (algorithm, flags) = try Self.choice(input)
        let key = PreviewSignKey.generate(algorithm.keyKind)
        let handle = try SigningKeyHandle.seal(key, algorithm: algorithm, flags: flags, context)
        var authFlags: AuthenticatorData.Flags = [.userPresent]
        if context.userVerified { authFlags.insert(.userVerified) }
        var outputs = ExtensionMap()
        outputs.setMakeCredentialOutput(
            PreviewSign.self, PreviewSignGeneratedKey(algorithm: algorithm.rawValue, flags: flags))
        let authData = AuthenticatorData(
            rpIDHash: context.rpIDHash, flags: authFlags, signCount: 0,
            attestedCredentialData: AttestedCredentialData(
                aaguid: context.aaguid, credentialID: handle, publicKey: key.publicKey(algorithm)),
            extensions: outputs.cbor)
        let attestation = CBORValue.intKeyed([
            (1, .textString("none")), (2, .byteString(authData.bytes)), (3, .map([:]))
        ])
        return (
            PreviewSignGeneratedKey(algorithm: algorithm.rawValue),
            PreviewSignAttestation(attestationObject: attestation.encoded).cbor
        )
    }

    /// Signs with the key a handle names. It needs the credential named in an allow list and
    /// both members (else CTAP2_ERR_INVALID_OPTION), a handle minted for this credential and RP
    /// (else CTAP2_ERR_INVALID_CREDENTIAL), the presence or verification the key was made to
    /// require, and what the algorithm asks of the data and arguments (`PreviewSignKey.sign`).
    func getAssertionOutput(_ input: PreviewSignSignRequest, _ context: ExtensionContext) async throws(CTAPStatus)
        -> PreviewSignSignature?
    {
        guard !context.discovering, let handle = input.keyHandle, let data = input.toBeSigned else {
            throw .invalidOption
        }
        guard let (key, algorithm, flags) = SigningKeyHandle.open(handle, context) else { throw .invalidCredential }
        if flags & PreviewSign.userVerificationRequired != 0, !context.userVerified { throw .puatRequired }
        if flags & PreviewSign.userPresenceRequired != 0, !context.userPresent { throw .upRequired }
        let arguments = try input.additionalArguments.map { (bytes) throws(CTAPStatus) in
            try COSESignArgs(decoding: bytes)
        }
        return PreviewSignSignature(signature: try key.sign(data, as: algorithm, arguments: arguments))
    }

    /// The first of the RP's algorithms this device generates, and valid flags.
    private static func choice(_ input: PreviewSignGenerateKey) throws(CTAPStatus) -> (PreviewSignAlgorithm, Int) {
        let flags = input.flags ?? 0
        guard PreviewSign.validFlags.contains(flags) else { throw .invalidOption }
        guard let algorithm = input.algorithms.lazy.compactMap(PreviewSignAlgorithm.init(rawValue:)).first else {
            throw .unsupportedAlgorithm
        }
        return (algorithm, flags)
    }
}

/// A previewSign key handle: the key and its flags sealed with AES-256-GCM under a key derived
/// from the device's wrapping key and the parent credential's ID, with the RP ID hash as
/// associated data, so a handle opens only with the credential and RP it was made for.
/// Layout: nonce (12) ‖ ciphertext of [flags (1) ‖ algorithm (1) ‖ key] ‖ tag (16), the key
/// being a P-256 scalar (32) or an ARKG-P256 private seed (64).
enum SigningKeyHandle {
    static func seal(_ key: PreviewSignKey, algorithm: PreviewSignAlgorithm, flags: Int, _ context: ExtensionContext)
        throws(CTAPStatus) -> [UInt8]
    {
        do {
            let box = try AES.GCM.seal(
                [UInt8(flags), algorithm.handleByte] + key.rawRepresentation, using: sealingKey(context),
                authenticating: context.rpIDHash)
            return Array(box.nonce) + Array(box.ciphertext) + Array(box.tag)
        } catch {
            throw .other
        }
    }

    static func open(_ handle: [UInt8], _ context: ExtensionContext) -> (
        key: PreviewSignKey, algorithm: PreviewSignAlgorithm, flags: Int
    )? {
        guard handle.count > 12 + 2 + 16,
            let box = try? AES.GCM.SealedBox(
                nonce: AES.GCM.Nonce(data: handle[..<12]), ciphertext: handle[12..<(handle.count - 16)],
                tag: handle.suffix(16)),
            let plaintext = try? AES.GCM.open(box, using: sealingKey(context), authenticating: context.rpIDHash),
            let algorithm = PreviewSignAlgorithm(handleByte: plaintext[1]),
            let key = PreviewSignKey(algorithm.keyKind, rawRepresentation: Array(plaintext.dropFirst(2)))
        else { return nil }
        return (key, algorithm, Int(plaintext[0]))
    }

    private static func sealingKey(_ context: ExtensionContext) -> SymmetricKey {
        HKDF<SHA256>.deriveKey(
            inputKeyMaterial: SymmetricKey(data: context.wrappingKey), salt: context.credentialID,
            info: Array("passkeyd previewSign key handle".utf8), outputByteCount: 32)
    }
}
