import CTAP
import Crypto

/// Non-resident credential IDs: the private key travels inside the ID, sealed with
/// AES-256-GCM under the device's wrapping key, with the RP ID hash as associated
/// data. An ID minted for another RP, by another device, or altered in transit
/// fails authentication and is simply not ours.
///
/// Layout: version (1) ‖ nonce (12) ‖ ciphertext of [alg (1) ‖ policy (1) ‖ key] ‖ tag (16),
/// the key being 32 bytes (ES256, ESP256, ES256K, EdDSA, and the ML-DSA seeds), 48 (ES384), 66 (ES512)
/// or 512 (RS256, PS256: modulus and private exponent);
/// where policy holds the bits the extensions' parts declare (`ExtensionStoredPart.policy`):
/// the credProtect level in the low two bits, 0x80 for hmac-secret, 0x40 for thirdPartyPayment
/// (clear in IDs made before it). A bit no part declares is never set: an ID with one is not ours.
enum CredentialWrapping {
    static let version: UInt8 = 1
    /// The ID length for a 32-byte key (ES256, EdDSA).
    static let idLength = idLength(keySize: 32)
    static func idLength(keySize: Int) -> Int { 1 + 12 + 2 + keySize + 16 }
    private static let keySizes: [UInt8: Int] = [
        1: 32, 2: 32, 3: 48, 4: 66, 5: 512, 6: 512, 7: 32, 8: 32, 9: 32, 10: 32, 11: 32
    ]
    /// The longest ID this device mints: an RSA credential's (getInfo's maxCredentialIdLength).
    static let maxIDLength = idLength(keySize: 512)

    static func wrap(
        _ key: CredentialKey, extensions: CredentialExtensionState, rpIDHash: [UInt8], wrappingKey: [UInt8]
    ) throws(CTAPStatus) -> [UInt8] {
        let plaintext = plaintext(key, extensions: extensions)
        do {
            let box = try AES.GCM.seal(
                plaintext, using: SymmetricKey(data: wrappingKey), authenticating: [version] + rpIDHash)
            return [version] + Array(box.nonce) + Array(box.ciphertext) + Array(box.tag)
        } catch {
            throw .other
        }
    }

    /// The key inside `credentialID` if this device minted it for this RP, else nil.
    static func unwrap(_ credentialID: [UInt8], rpIDHash: [UInt8], wrappingKey: [UInt8]) -> (
        key: CredentialKey, extensions: CredentialExtensionState
    )? {
        guard credentialID.first == version,
            Set(keySizes.values.map { idLength(keySize: $0) }).contains(credentialID.count)
        else { return nil }
        let tagStart = credentialID.count - 16
        guard
            let box = try? AES.GCM.SealedBox(
                nonce: AES.GCM.Nonce(data: credentialID[1..<13]),
                ciphertext: credentialID[13..<tagStart],
                tag: credentialID[tagStart...]),
            let plaintext = try? AES.GCM.open(
                box, using: SymmetricKey(data: wrappingKey), authenticating: [version] + rpIDHash),
            let algorithm = algorithm(from: plaintext[plaintext.startIndex]),
            plaintext.count == 2 + (keySizes[plaintext[plaintext.startIndex]] ?? 0),
            let extensions = extensionState(policy: plaintext[plaintext.startIndex + 1])
        else { return nil }
        return (CredentialKey(algorithm: algorithm, rawRepresentation: Array(plaintext.dropFirst(2))), extensions)
    }

    /// What the ID seals: alg ‖ policy ‖ key.
    static func plaintext(_ key: CredentialKey, extensions: CredentialExtensionState) -> [UInt8] {
        [algorithmByte(key.algorithm), policyByte(extensions)] + key.rawRepresentation
    }

    /// The parts that travel in the ID, and every bit they use.
    private static let policyParts = CredentialExtensionState.parts.filter { $0.policyMask != 0 }
    private static let policyMask = policyParts.reduce(0) { $0 | $1.policyMask }

    private static func policyByte(_ state: CredentialExtensionState) -> UInt8 {
        policyParts.reduce(0) { $0 | $1.policyBits(of: state) }
    }

    /// A new credential's state with the parts the policy byte carries; nil when a bit is set
    /// that no part declares, or a part's bits are no value of it.
    private static func extensionState(policy: UInt8) -> CredentialExtensionState? {
        guard policy & ~policyMask == 0 else { return nil }
        var state = CredentialExtensionState()
        for part in policyParts { guard part.apply(policy: policy, to: &state) else { return nil } }
        return state
    }

    private static let algorithms: [UInt8: COSEAlgorithm] = [
        1: .es256, 2: .edDSA, 3: .es384, 4: .es512, 5: .rs256, 6: .ps256, 7: .mldsa65, 8: .mldsa87, 9: .esp256,
        10: .es256K, 11: .mldsa44
    ]

    private static func algorithmByte(_ algorithm: COSEAlgorithm) -> UInt8 {
        algorithms.first { $0.value == algorithm }?.key ?? 0
    }

    private static func algorithm(from byte: UInt8) -> COSEAlgorithm? {
        algorithms[byte]
    }
}
