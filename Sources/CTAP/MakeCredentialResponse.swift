import CBOR
import PasskeydMacros

/// authenticatorMakeCredential response (CTAP 2.1 §6.1.2, "authenticatorMakeCredential response structure").
@MemberwiseInit
public struct MakeCredentialResponse: CBORRepresentable, CTAPCommandResponse, Sendable, Hashable {
    /// The response map's keys (§6.1.2), the only place they are written.
    enum Key: Int, CodingKey {
        case format = 0x01
        case authenticatorData, attestationStatement, enterpriseAttestation, largeBlobKey, unsignedExtensionOutputs
    }

    public var format: String { attestation.statement.format }
    public var attestation: AttestationObject
    public var enterpriseAttestation: Bool?
    /// The credential's largeBlobKey, when the largeBlobKey extension asked for one (CTAP 2.1 §12.3).
    public var largeBlobKey: [UInt8]?
    /// Extension outputs outside authData (CTAP 2.2 §6.1.2 `unsignedExtensionOutputs`), by identifier.
    public var unsignedExtensionOutputs: ExtensionMap = ExtensionMap()

    public var cbor: CBORValue {
        .keyed(
            Key.self,
            [
                (.format, .textString(attestation.statement.format)),
                (.authenticatorData, .byteString(attestation.authenticatorData)),
                (.attestationStatement, attestation.statement.cbor),
                (.enterpriseAttestation, enterpriseAttestation.map { .boolean($0) }),
                (.largeBlobKey, largeBlobKey.map { .byteString($0) }),
                (.unsignedExtensionOutputs, unsignedExtensionOutputs.isEmpty ? nil : unsignedExtensionOutputs.cbor)
            ])
    }

    public init(cbor: CBORValue) throws(CTAPStatus) {
        let map = try CBORMap(cbor)
        let format = try map.required(Key.format, CBORRead.text)
        let authData = try map.required(Key.authenticatorData, CBORRead.bytes)
        let statement = try AttestationStatement(
            format: format, cbor: try map.required(Key.attestationStatement, CBORRead.any))
        attestation = AttestationObject(authenticatorData: authData, statement: statement)
        enterpriseAttestation = try map.optional(Key.enterpriseAttestation, CBORRead.bool)
        largeBlobKey = try map.optional(Key.largeBlobKey, CBORRead.bytes)
        unsignedExtensionOutputs =
            try map.optional(Key.unsignedExtensionOutputs, CBORRead.any).map { value throws(CTAPStatus) in
                try ExtensionMap(cbor: value)
            } ?? ExtensionMap()
    }
}
