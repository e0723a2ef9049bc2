import CTAP

/// The events a command's typed request and response describe, derived here so that no
/// spec step emits anything.
extension DeviceEvent {
    init(made response: MakeCredentialResponse, for request: MakeCredentialRequest) {
        let authData = try? AuthenticatorData(bytes: response.attestation.authenticatorData)
        self.init(
            kind: .credentialAdded, rpID: request.rp.id, credentialID: authData?.attestedCredentialData?.credentialID,
            userName: request.user.name, signCount: authData?.signCount)
    }

    init(asserted response: GetAssertionResponse, rpID: String) {
        let authData = try? AuthenticatorData(bytes: response.authenticatorData)
        self.init(
            kind: .credentialAsserted, rpID: rpID, credentialID: response.credential.id,
            userName: response.user?.name, signCount: authData?.signCount)
    }

    /// pin.set or pin.changed after a successful clientPIN; nil for every other subcommand.
    init?(pinChangedBy request: ClientPINRequest) {
        switch request.subCommand {
        case .setPIN: self.init(kind: .pinSet)
        case .changePIN: self.init(kind: .pinChanged)
        default: return nil
        }
    }

    /// credential.deleted or credential.updated after a successful credential management
    /// subcommand; nil for the ones that only read.
    init?(changedBy request: CredentialManagementRequest) {
        let parameters = request.subCommandParams
        switch request.subCommand {
        case .deleteCredential:
            self.init(kind: .credentialDeleted, credentialID: parameters?.credentialID?.id)
        case .updateUserInformation:
            self.init(
                kind: .credentialUpdated, credentialID: parameters?.credentialID?.id, userName: parameters?.user?.name)
        default:
            return nil
        }
    }

    /// credential.added after U2F_REGISTER, credential.asserted after U2F_AUTHENTICATE, as for
    /// their CTAP2 counterparts (Chrome's credentialAdded and credentialAsserted fire for a
    /// virtual U2F authenticator too); U2F names no RP and no user (FIDO U2F Raw Message
    /// Formats §4.1, §5.1). Nil for U2F_VERSION.
    init?(u2f request: U2FRequest, answered response: U2FResponse) {
        switch (request, response) {
        case (.register, .registration(_, let keyHandle, _, _)):
            self.init(kind: .credentialAdded, credentialID: keyHandle, signCount: 0)
        case (.authenticate(let authenticate), .authentication(_, let counter, _)):
            self.init(kind: .credentialAsserted, credentialID: authenticate.keyHandle, signCount: counter)
        default:
            return nil
        }
    }

    /// credential.added for a credential passkeydImport stored.
    init(imported record: CredentialRecord) {
        self.init(
            kind: .credentialAdded, rpID: record.rp.id, credentialID: record.id, userName: record.user.name,
            signCount: record.signCount.flatMap(UInt32.init(exactly:)))
    }

    /// credential.updated for new backup flags or counter (passkeydCredentialFlags).
    init(flagsChangedOn source: CredentialSource) {
        self.init(
            kind: .credentialUpdated, rpID: source.rp.id, credentialID: source.id, userName: source.user.name,
            detail: "backup flags")
    }

    /// credential.deleted for a credential passkeydDelete removed.
    init(deletedByTestControls source: CredentialSource) {
        self.init(kind: .credentialDeleted, rpID: source.rp.id, credentialID: source.id, userName: source.user.name)
    }
}
