import CBOR

/// authenticatorMakeCredential response (CTAP 2.1 §6.1.2, "authenticatorMakeCredential response structure").
public struct MakeCredentialResponse: Sendable, Hashable {
    public var format: String { attestation.statement.format }
    public var attestation: AttestationObject
    public var enterpriseAttestation: Bool?
    /// The credential's largeBlobKey, when the largeBlobKey extension asked for one (CTAP 2.1 §12.3).
    public var largeBlobKey: [UInt8]?
    /// Extension outputs outside authData (CTAP 2.2 §6.1.2 `unsignedExtensionOutputs`), by identifier.
    public var unsignedExtensionOutputs: ExtensionMap

    public init(attestation: AttestationObject, enterpriseAttestation: Bool? = nil, largeBlobKey: [UInt8]? = nil,
                unsignedExtensionOutputs: ExtensionMap = ExtensionMap()) {
        self.attestation = attestation
        self.enterpriseAttestation = enterpriseAttestation
        self.largeBlobKey = largeBlobKey
        self.unsignedExtensionOutputs = unsignedExtensionOutputs
    }

    public var cbor: CBORValue {
        .intKeyed([
            (0x01, .textString(attestation.statement.format)),
            (0x02, .byteString(attestation.authenticatorData)),
            (0x03, attestation.statement.cbor),
            (0x04, enterpriseAttestation.map { .boolean($0) }),
            (0x05, largeBlobKey.map { .byteString($0) }),
            (0x06, unsignedExtensionOutputs.isEmpty ? nil : unsignedExtensionOutputs.cbor),
        ])
    }

    public init(cbor: CBORValue) throws(CTAPStatus) {
        let map = try CBORMap(cbor)
        let format = try map.required(0x01, CBORRead.text)
        let authData = try map.required(0x02, CBORRead.bytes)
        let statement = try AttestationStatement(format: format, cbor: try map.required(0x03, CBORRead.any))
        attestation = AttestationObject(authenticatorData: authData, statement: statement)
        enterpriseAttestation = try map.optional(0x04, CBORRead.bool)
        largeBlobKey = try map.optional(0x05, CBORRead.bytes)
        unsignedExtensionOutputs = try map.optional(0x06, CBORRead.any).map { value throws(CTAPStatus) in try ExtensionMap(cbor: value) } ?? ExtensionMap()
    }
}
