/// passkeydAttestationRoot (0xB3, docs/vendor-commands.md): the keystore's test attestation
/// root certificate, which `--attestation x5c` chains to. Public: no token is needed.
public struct AttestationRootResponse: CTAPStructure, Sendable, Hashable {
    enum CodingKeys: Int, CodingKey {
        case certificate = 0x01
    }

    /// DER.
    public var certificate: [UInt8]

    public init(certificate: [UInt8]) {
        self.certificate = certificate
    }
}
