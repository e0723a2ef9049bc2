/// Authenticator API command bytes (CTAP 2.1 §6, "Authenticator API").
public enum CTAPCommand: UInt8, Sendable, CaseIterable {
    case makeCredential = 0x01
    case getAssertion = 0x02
    case getInfo = 0x04
    case clientPIN = 0x06
    case reset = 0x07
    case getNextAssertion = 0x08
    case bioEnrollment = 0x09
    case credentialManagement = 0x0A
    case selection = 0x0B
    case largeBlobs = 0x0C
    case config = 0x0D
    /// authenticatorBioEnrollment under its CTAP 2.1-PRE code (FIDO BioEnrollment prototype),
    /// which libfido2's fido_bio_* send.
    case bioEnrollmentPreview = 0x40
    /// authenticatorCredentialManagement under its CTAP 2.1-PRE code, still sent by older hosts.
    case credentialManagementPreview = 0x41
    /// passkeyd's credential transfer (vendor commands, docs/vendor-commands.md): test controls,
    /// each authenticated by a pinUvAuthToken with the `cm` permission.
    case passkeydExport = 0xB0
    case passkeydImport = 0xB1
    case passkeydCredentialFlags = 0xB2
    /// The test attestation root certificate (public, unauthenticated).
    case passkeydAttestationRoot = 0xB3
    /// Removes one credential, discoverable or not (a test control like 0xB0–0xB2).
    case passkeydDelete = 0xB4
}

extension CTAPCommand {
    /// passkeyd's own vendor commands (0xB0–0xB4, docs/vendor-commands.md): test controls, not
    /// the device's CTAP2, so a U2F-only profile whose test controls are open answers them too.
    public var isPasskeydVendorCommand: Bool {
        switch self {
        case .passkeydExport, .passkeydImport, .passkeydCredentialFlags, .passkeydAttestationRoot, .passkeydDelete:
            true
        default: false
        }
    }

    /// The request each code is parsed as; a CTAP 2.1-PRE code shares its command's request.
    public var requestType: any CTAPCommandRequest.Type {
        switch self {
        case .makeCredential: MakeCredentialRequest.self
        case .getAssertion: GetAssertionRequest.self
        case .getInfo: GetInfoRequest.self
        case .clientPIN: ClientPINRequest.self
        case .reset: ResetRequest.self
        case .getNextAssertion: GetNextAssertionRequest.self
        case .bioEnrollment, .bioEnrollmentPreview: BioEnrollmentRequest.self
        case .credentialManagement, .credentialManagementPreview: CredentialManagementRequest.self
        case .selection: SelectionRequest.self
        case .largeBlobs: LargeBlobsRequest.self
        case .config: AuthenticatorConfigRequest.self
        case .passkeydExport: AuthenticatedVendorRequest<ExportParameters>.self
        case .passkeydImport: AuthenticatedVendorRequest<ImportParameters>.self
        case .passkeydCredentialFlags: AuthenticatedVendorRequest<CredentialFlagsParameters>.self
        case .passkeydAttestationRoot: AttestationRootRequest.self
        case .passkeydDelete: AuthenticatedVendorRequest<DeleteParameters>.self
        }
    }
}
