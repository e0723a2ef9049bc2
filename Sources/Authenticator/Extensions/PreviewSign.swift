import CBOR
import CTAP
import Crypto

/// previewSign (WebAuthn signing extension draft, version 4, as python-fido2 2.2.1 speaks it):
/// makeCredential generates a signing key of its own for the credential, returned as a key
/// handle with its public key and attestation; getAssertion signs the RP's data with it.
///
/// Offered algorithms: ESP256 (-9) and ES256 (-7), the same P-256 ECDSA over SHA-256. Not yet:
/// ESP256-split (-300, the RP hashes) and ESP256-split-ARKG (-65539, which needs ARKG-P256,
/// draft-bradleylundberg-cfrg-arkg); a request for only those is CTAP2_ERR_UNSUPPORTED_ALGORITHM.
struct PreviewSignExtension: AuthenticatorExtension {
    typealias Wire = PreviewSign

    /// Checked before the credential exists, so a bad request creates nothing.
    func record(_ input: PreviewSignGenerateKey, on credential: inout CredentialExtensionState, _ creation: CredentialCreation) throws(CTAPStatus) {
        _ = try Self.choice(input)
    }

    /// The generated key: its algorithm in authData, its attestation object (format `none`, the
    /// key handle as credential ID, the flags in its own authData's previewSign output) unsigned.
    func makeCredentialOutputs(_ input: PreviewSignGenerateKey, _ context: ExtensionContext) async throws(CTAPStatus)
        -> (signed: PreviewSignGeneratedKey?, unsigned: CBORValue?) {
        let (algorithm, flags) = try Self.choice(input)
        let key = try CredentialKey.generate(algorithm)
        let handle = try SigningKeyHandle.seal(key, flags: flags, context)
        var authFlags: AuthenticatorData.Flags = [.userPresent]
        if context.userVerified { authFlags.insert(.userVerified) }
        var outputs = ExtensionMap()
        outputs.setMakeCredentialOutput(PreviewSign.self, PreviewSignGeneratedKey(algorithm: algorithm.rawValue, flags: flags))
        let authData = AuthenticatorData(
            rpIDHash: context.rpIDHash, flags: authFlags, signCount: 0,
            attestedCredentialData: AttestedCredentialData(aaguid: context.aaguid, credentialID: handle, publicKey: try key.publicKey()),
            extensions: outputs.cbor)
        let attestation = CBORValue.intKeyed([(1, .textString("none")), (2, .byteString(authData.bytes)), (3, .map([:]))])
        return (PreviewSignGeneratedKey(algorithm: algorithm.rawValue), PreviewSignAttestation(attestationObject: attestation.encoded).cbor)
    }

    /// Signs with the key a handle names. It needs the credential named in an allow list and
    /// both members (else CTAP2_ERR_INVALID_OPTION), a handle minted for this credential and RP
    /// (else CTAP2_ERR_INVALID_CREDENTIAL), and the presence or verification the key was made to require.
    func getAssertionOutput(_ input: PreviewSignSignRequest, _ context: ExtensionContext) async throws(CTAPStatus) -> PreviewSignSignature? {
        guard !context.discovering, let handle = input.keyHandle, let data = input.toBeSigned else { throw .invalidOption }
        guard let (key, flags) = SigningKeyHandle.open(handle, context) else { throw .invalidCredential }
        if flags & PreviewSign.userVerificationRequired != 0, !context.userVerified { throw .puatRequired }
        if flags & PreviewSign.userPresenceRequired != 0, !context.userPresent { throw .upRequired }
        return PreviewSignSignature(signature: try key.sign(data))
    }

    /// The first of the RP's algorithms this device generates, and valid flags.
    private static func choice(_ input: PreviewSignGenerateKey) throws(CTAPStatus) -> (COSEAlgorithm, Int) {
        let flags = input.flags ?? 0
        guard PreviewSign.validFlags.contains(flags) else { throw .invalidOption }
        guard let algorithm = input.algorithms.lazy.compactMap(COSEAlgorithm.init(rawValue:)).first(where: SigningKeyHandle.algorithms.keys.contains)
        else { throw .unsupportedAlgorithm }
        return (algorithm, flags)
    }
}

/// A previewSign key handle: the key and its flags sealed with AES-256-GCM under a key derived
/// from the device's wrapping key and the parent credential's ID, with the RP ID hash as
/// associated data, so a handle opens only with the credential and RP it was made for.
/// Layout: nonce (12) ‖ ciphertext of [flags (1) ‖ algorithm (1) ‖ P-256 scalar (32)] ‖ tag (16).
enum SigningKeyHandle {
    static let algorithms: [COSEAlgorithm: UInt8] = [.esp256: 1, .es256: 2]

    static func seal(_ key: CredentialKey, flags: Int, _ context: ExtensionContext) throws(CTAPStatus) -> [UInt8] {
        guard let algorithmByte = algorithms[key.algorithm] else { throw .unsupportedAlgorithm }
        do {
            let box = try AES.GCM.seal([UInt8(flags), algorithmByte] + key.rawRepresentation, using: sealingKey(context), authenticating: context.rpIDHash)
            return Array(box.nonce) + Array(box.ciphertext) + Array(box.tag)
        } catch {
            throw .other
        }
    }

    static func open(_ handle: [UInt8], _ context: ExtensionContext) -> (key: CredentialKey, flags: Int)? {
        guard handle.count == 12 + 34 + 16,
              let box = try? AES.GCM.SealedBox(nonce: AES.GCM.Nonce(data: handle[..<12]), ciphertext: handle[12..<46], tag: handle[46...]),
              let plaintext = try? AES.GCM.open(box, using: sealingKey(context), authenticating: context.rpIDHash),
              let algorithm = algorithms.first(where: { $0.value == plaintext[1] })?.key
        else { return nil }
        return (CredentialKey(algorithm: algorithm, rawRepresentation: Array(plaintext[2...])), Int(plaintext[0]))
    }

    private static func sealingKey(_ context: ExtensionContext) -> SymmetricKey {
        HKDF<SHA256>.deriveKey(inputKeyMaterial: SymmetricKey(data: context.wrappingKey), salt: context.credentialID,
                               info: Array("passkeyd previewSign key handle".utf8), outputByteCount: 32)
    }
}
