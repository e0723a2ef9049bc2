import CTAP
import PasskeyClient

/// How values read to people.
enum Names {
    /// COSE algorithm names (IANA COSE Algorithms registry).
    static func algorithm(_ value: Int) -> String {
        switch value {
        case COSEAlgorithm.es256.rawValue: return "ES256"
        case COSEAlgorithm.edDSA.rawValue: return "EdDSA"
        case COSEAlgorithm.es384.rawValue: return "ES384"
        case COSEAlgorithm.es512.rawValue: return "ES512"
        case COSEAlgorithm.rs256.rawValue: return "RS256"
        case COSEAlgorithm.ps256.rawValue: return "PS256"
        case COSEAlgorithm.esp256.rawValue: return "ESP256"
        case COSEAlgorithm.mldsa65.rawValue: return "ML-DSA-65"
        case COSEAlgorithm.mldsa87.rawValue: return "ML-DSA-87"
        case COSEAlgorithm.es256K.rawValue: return "ES256K"
        default: return "COSE \(value)"
        }
    }

    /// The credProtect level as the table shows it (CTAP 2.1 §12.1).
    static func protection(_ level: CredentialProtection?) -> String {
        switch level {
        case .userVerificationOptional?: return "uv optional"
        case .userVerificationOptionalWithCredentialIDList?: return "uv optional with ID list"
        case .userVerificationRequired?: return "uv required"
        case nil: return "unknown"
        }
    }

    /// The credProtect level's identifier in JSON (WebAuthn L3 §10.1.1 credentialProtectionPolicy).
    static func protectionIdentifier(_ level: CredentialProtection?) -> String? {
        switch level {
        case .userVerificationOptional?: return "userVerificationOptional"
        case .userVerificationOptionalWithCredentialIDList?: return "userVerificationOptionalWithCredentialIDList"
        case .userVerificationRequired?: return "userVerificationRequired"
        case nil: return nil
        }
    }

    /// An AAGUID in the 8-4-4-4-12 hexadecimal form.
    static func aaguid(_ bytes: [UInt8]) -> String {
        let hex = bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
        guard hex.count == 32 else { return hex }
        var out = ""
        for (i, c) in hex.enumerated() {
            if [8, 12, 16, 20].contains(i) { out += "-" }
            out.append(c)
        }
        return out
    }
}
