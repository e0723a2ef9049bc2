import PasskeydMacros

/// passkeydAttestationRoot (0xB3, docs/vendor-commands.md): the keystore's test attestation
/// root certificate, which `--attestation x5c` chains to. Public: no token is needed.
@MemberwiseInit
public struct AttestationRootResponse: CTAPStructure, CTAPCommandResponse, Sendable, Hashable {
    enum CodingKeys: Int, CodingKey {
        case certificate = 0x01
    }

    /// DER.
    public var certificate: [UInt8]
}
