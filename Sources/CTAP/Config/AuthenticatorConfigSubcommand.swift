/// authenticatorConfig subcommands (CTAP 2.1 §6.11).
public enum AuthenticatorConfigSubcommand: UInt8, CTAPSubcommand, Sendable, Hashable, CaseIterable {
    case enableEnterpriseAttestation = 0x01
    case toggleAlwaysUv = 0x02
    case setMinPINLength = 0x03
    case vendorPrototype = 0xFF
}
