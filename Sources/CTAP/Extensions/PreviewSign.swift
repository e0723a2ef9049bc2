import CBOR
import PasskeydMacros

/// The previewSign extension (WebAuthn signing extension draft, version 4, as python-fido2
/// 2.2.1 speaks it): at creation the authenticator generates a separate signing key bound to
/// the credential and returns its key handle, public key and attestation; at assertion it signs
/// arbitrary data with that key. The wire uses small integer keys.
public enum PreviewSign: CTAPExtension {
    public static let identifier = "previewSign"
    public typealias MakeCredentialInput = PreviewSignGenerateKey
    /// authData's output: the algorithm chosen (3).
    public typealias MakeCredentialOutput = PreviewSignGeneratedKey
    public typealias GetAssertionInput = PreviewSignSignRequest
    public typealias GetAssertionOutput = PreviewSignSignature

    /// Flag bits of a generated key: bit 0 user presence required to sign, bit 2 user
    /// verification required (which implies presence). Only 0b000, 0b001 and 0b101 are valid.
    public static let validFlags: Set<Int> = [0b000, 0b001, 0b101]
    public static let userPresenceRequired = 0b001
    public static let userVerificationRequired = 0b100
}

/// previewSign's makeCredential input: the RP's algorithms in its order (3) and the key's flags (4).
@MemberwiseInit
public struct PreviewSignGenerateKey: CTAPStructure, Sendable, Hashable {
    enum CodingKeys: Int, CodingKey {
        case algorithms = 3
        case flags
    }

    public var algorithms: [Int]
    @Unsigned public var flags: Int?
}

/// previewSign's signed makeCredential output (3: the algorithm), and in the generated key's
/// own authData also its flags (4).
@MemberwiseInit
public struct PreviewSignGeneratedKey: CTAPStructure, Sendable, Hashable {
    enum CodingKeys: Int, CodingKey {
        case algorithm = 3
        case flags
    }

    public var algorithm: Int
    @Unsigned public var flags: Int?
}

/// previewSign's unsigned makeCredential output (the response's unsignedExtensionOutputs, CTAP
/// 2.2 §6.1 0x06): the generated key's attestation object (7), CBOR with CTAP's integer keys.
@MemberwiseInit
public struct PreviewSignAttestation: CTAPStructure, Sendable, Hashable {
    enum CodingKeys: Int, CodingKey {
        case attestationObject = 7
    }

    public var attestationObject: [UInt8]
}

/// previewSign's getAssertion input: the key handle (2), the data to sign (6), and arguments of
/// algorithms that take them (7, CBOR bytes). Absent members are the authenticator's to refuse.
@MemberwiseInit
public struct PreviewSignSignRequest: CTAPStructure, Sendable, Hashable {
    enum CodingKeys: Int, CodingKey {
        case keyHandle = 2
        case toBeSigned = 6
        case additionalArguments
    }

    public var keyHandle: [UInt8]?
    public var toBeSigned: [UInt8]?
    public var additionalArguments: [UInt8]?
}

/// previewSign's getAssertion output: the signature (6).
@MemberwiseInit
public struct PreviewSignSignature: CTAPStructure, Sendable, Hashable {
    enum CodingKeys: Int, CodingKey {
        case signature = 6
    }

    public var signature: [UInt8]
}
