import CTAP
import WebAuthn

extension WebAuthnClient {
    /// navigator.credentials.get() (WebAuthn L3 §5.1.4) in every mediation mode.
    /// `passwords` are saved passwords the app offers beside passkeys; choosing one
    /// returns it as `.password`, never as an error.
    public func get(
        _ options: PublicKeyCredentialRequestOptionsJSON, mediation: Mediation = .optional,
        passwords: [PasswordCredential] = []
    ) async throws(WebAuthnError) -> GetResult {
        // §5.1.4.1 step 7: the RP ID must be valid for this origin.
        let rpID = try rpIDPolicy.validate(rpID: options.rpId, origin: origin)
        let (clientDataJSON, clientDataHash) = clientData(.get, challenge: options.challenge)
        let ceremony = Ceremony(
            client: self, options: options, rpID: rpID, clientDataJSON: clientDataJSON,
            clientDataHash: clientDataHash, passwords: passwords)
        switch mediation {
        case .conditional:
            // Conditional requests wait for the person as long as the page does: no timeout.
            return try await ceremony.conditional()
        case .immediate:
            return try await withCeremonyTimeout(options.timeout, rpID: rpID) {
                () async throws(WebAuthnError) -> GetResult in
                try await ceremony.immediate()
            }
        case .optional, .required:
            return try await withCeremonyTimeout(options.timeout, rpID: rpID) {
                () async throws(WebAuthnError) -> GetResult in
                try await ceremony.modal()
            }
        }
    }
}

/// One authentication ceremony's fixed inputs and its steps.
struct Ceremony: Sendable {
    let client: WebAuthnClient
    let options: PublicKeyCredentialRequestOptionsJSON
    let rpID: String
    let clientDataJSON: [UInt8]
    let clientDataHash: [UInt8]
    let passwords: [PasswordCredential]

    var allowList: [PublicKeyCredentialDescriptor] {
        options.allowCredentials.filter { $0.type == "public-key" }.map(\.ctap)
    }

    func call<T: Sendable>(_ body: () async throws(CTAP2Error) -> T) async throws(WebAuthnError) -> T {
        try await client.call(rpID, body)
    }

    /// A session on the authenticator and the protocol it speaks: where every mode starts.
    private func start() async throws(WebAuthnError) -> (CTAP2Session, AuthenticatorProtocol) {
        let session = client.makeSession()
        return (session, try await client.authenticatorProtocol(session, rpID: rpID))
    }

    /// A modal request: the person touches, then picks when there is a choice to make.
    func modal() async throws(WebAuthnError) -> GetResult {
        switch try await start() {
        case (let session, .ctap2(let info)): return try await modal(session: session, info: info)
        case (_, .ctap1): return try await modalOverCTAP1()
        }
    }

    /// The modal order (WebAuthn L3 §5.1.4.1 steps 18–20; docs/client.md): the accounts are found
    /// without presence, the person picks one, approves the sign-in naming it, and only then does
    /// the chosen credential sign with presence. No other credential ever signs with presence.
    private func modal(session: CTAP2Session, info: GetInfoResponse) async throws(WebAuthnError) -> GetResult {
        if !passwords.isEmpty {
            // Passkey or password: one picker with both, then the chosen passkey signs.
            let accounts = try await discoverSilently(session: session, info: info, withNames: true)
            let choices = accounts.map(CredentialChoice.passkey) + passwords.map(CredentialChoice.password)
            guard let picked = await client.userAgent.chooseCredential(from: choices, rpID: rpID) else {
                throw .notAllowed("The request was cancelled.")
            }
            return try await complete(with: picked, session: session, info: info)
        }
        let largeBlob = try LargeBlobAccess(options.extensions?.largeBlob, allowCredentials: allowList.count)
        let enumerates = allowList.isEmpty && CredentialManagementSession.command(for: info) != nil
        let verification = try await planUserVerification(
            info: info, session: session, largeBlob: largeBlob, extra: enumerates ? .credentialManagement : [])
        let accounts = try await discover(
            session: session, info: info, verification: verification, enumerating: enumerates)
        let chosen: PasskeyAccount?
        switch accounts.count {
        case 0:
            // Nothing found silently: with an allow list the credential may still be there, hidden
            // from a silent request (credProtect, CTAP 2.1 §12.1, or alwaysUv): one assertion with
            // presence over the list decides, and the consent cannot name the account.
            guard !allowList.isEmpty else { throw client.mapStatus(.noCredentials, rpID: rpID) }
            chosen = nil
        case 1:
            chosen = accounts[0]
        default:
            let choices = accounts.map(CredentialChoice.passkey)
            guard let picked = await client.userAgent.chooseCredential(from: choices, rpID: rpID),
                case .passkey(let account) = picked
            else { throw .notAllowed("The request was cancelled.") }
            chosen = account
        }
        try await approve(chosen)
        let prf = try await prfEvaluation(
            for: chosen?.credentialID ?? (allowList.count == 1 ? allowList[0].id : nil), session: session, info: info)
        let signingList = chosen.map { [PublicKeyCredentialDescriptor(id: $0.credentialID)] } ?? allowList
        let response = try await call { () async throws(CTAP2Error) in
            try await session.getAssertion(
                request(allowList: signingList, up: true, verification: verification, prf: prf, largeBlob: largeBlob))
        }
        return .passkey(
            await result(
                from: response, prf: prf, largeBlob: largeBlob, session: session, info: info,
                verification: verification))
    }

    /// Asks the person to approve signing in as `account` (nil: the authenticator picks among the
    /// allowed credentials). Asked after the choice and before any presence is spent.
    func approve(_ account: PasskeyAccount?) async throws(WebAuthnError) {
        guard await client.userAgent.approve(.signIn(rpID: rpID, account: account)) else {
            throw .notAllowed("Signing in was declined.")
        }
    }

    /// The modal request's accounts, found without presence. With a pinUvAuthToken and no allow
    /// list they are enumerated by credential management (CTAP 2.1 §6.8.4), which signs nothing, so
    /// no account but the chosen one ever makes an assertion or advances its counter; otherwise a
    /// silent assertion (`up` false) per credential (§6.2.2, with the same verification as the
    /// real one, so names come back when the user is verified).
    /// `enumerating`: the token was asked with the credential management permission.
    private func discover(
        session: CTAP2Session, info: GetInfoResponse, verification: UserVerificationMethod, enumerating: Bool
    ) async throws(WebAuthnError) -> [PasskeyAccount] {
        if enumerating, case .token(let token) = verification,
            let listed = try? await CredentialManagementSession(session: session, token: token, info: info)
                .credentials(rpID: rpID)
        {
            return listed.map {
                PasskeyAccount(
                    credentialID: $0.credentialID, userHandle: $0.user.id, name: $0.user.name,
                    displayName: $0.user.displayName)
            }
        }
        do {
            return try await session.getAllAssertions(
                request(allowList: allowList, up: false, verification: verification)
            )
            .map(Self.account(from:))
        } catch .status(.noCredentials) {
            return []
        } catch {
            throw client.mapError(error, rpID: rpID)
        }
    }

    /// Conditional mediation: silent discovery feeds the suggestion bar; a pick completes it.
    func conditional() async throws(WebAuthnError) -> GetResult {
        let (session, reached) = try await start()
        guard case .ctap2(let info) = reached else { return try await conditionalOverCTAP1() }
        let accounts = try await discoverSilently(session: session, info: info, withNames: true)
        client.loggers.authentication.debug(
            "conditional suggestions ready", metadata: ["rp": "\(rpID)", "count": "\(accounts.count + passwords.count)"]
        )
        let choices = accounts.map(CredentialChoice.passkey) + passwords.map(CredentialChoice.password)
        let picked = await client.userAgent.offerSuggestions(choices, rpID: rpID)
        if Task.isCancelled { throw .abort("The AutoFill request was cancelled. A new request can start now.") }
        guard let picked else { throw .notAllowed("The suggestions were dismissed.") }
        return try await complete(with: picked, session: session, info: info)
    }

    /// Immediate mediation: nothing available locally fails at once, without any UI.
    func immediate() async throws(WebAuthnError) -> GetResult {
        let (session, reached) = try await start()
        guard case .ctap2(let info) = reached else { return try await immediateOverCTAP1() }
        let accounts = try await discoverSilently(session: session, info: info, withNames: false)
        guard !accounts.isEmpty || !passwords.isEmpty else {
            throw .notAllowed("No passkey for \(rpID) is available on this device.", cause: .ctap(.noCredentials))
        }
        return try await modal(session: session, info: info)
    }

    /// The accounts an RP has here, found without user presence. Nothing signed in
    /// the process leaves this function. Names come back only with user verification
    /// (CTAP 2.1 §6.2.2), so `withNames` uses the built-in method when there is one.
    private func discoverSilently(session: CTAP2Session, info: GetInfoResponse, withNames: Bool)
        async throws(WebAuthnError) -> [PasskeyAccount]
    {
        let useUV = withNames && info.options["uv"] == true
        let silent = GetAssertionRequest(
            rpID: rpID, clientDataHash: clientDataHash, allowList: allowList,
            options: RequestOptions(up: false, uv: useUV ? true : nil))
        do {
            return try await session.getAllAssertions(silent).map(Self.account(from:))
        } catch .status(.noCredentials) {
            return []
        } catch {
            throw client.mapError(error, rpID: rpID)
        }
    }

    /// Turns the person's pick into the ceremony's result: a password as is, a passkey
    /// by a real assertion with presence and the verification the RP asked for.
    private func complete(with picked: CredentialChoice, session: CTAP2Session, info: GetInfoResponse)
        async throws(WebAuthnError) -> GetResult
    {
        switch picked {
        case .password(let password):
            client.loggers.authentication.info("password chosen instead of a passkey", metadata: ["rp": "\(rpID)"])
            return .password(password)
        case .passkey(let account):
            try await approve(account)
            let largeBlob = try LargeBlobAccess(options.extensions?.largeBlob, allowCredentials: 1)
            let verification = try await planUserVerification(info: info, session: session, largeBlob: largeBlob)
            let prf = try await prfEvaluation(for: account.credentialID, session: session, info: info)
            let response = try await call { () async throws(CTAP2Error) in
                try await session.getAssertion(
                    request(
                        allowList: [PublicKeyCredentialDescriptor(id: account.credentialID)],
                        up: true, verification: verification, prf: prf, largeBlob: largeBlob))
            }
            return .passkey(
                await result(
                    from: response, prf: prf, largeBlob: largeBlob, session: session, info: info,
                    verification: verification))
        }
    }

    /// User verification as the RP asked; a large-blob write on a protected authenticator needs a
    /// token with `lbw` (CTAP 2.1 §6.10.2 step 4.5), so it verifies the user whatever the RP asked.
    /// `extra`: what else the token is for (credential enumeration for the modal chooser).
    private func planUserVerification(
        info: GetInfoResponse, session: CTAP2Session,
        largeBlob: LargeBlobAccess?, extra: PinUvAuthTokenPermissions = []
    ) async throws(WebAuthnError) -> UserVerificationMethod {
        let permissions = PinUvAuthTokenPermissions.getAssertion.union(largeBlob?.permissions ?? []).union(extra)
        let protected = info.options["uv"] == true || info.options["clientPin"] == true
        return try await client.planUserVerification(
            options.userVerification, info: info, session: session, permissions: permissions, rpID: rpID,
            mustVerify: protected && !(largeBlob?.permissions.isEmpty ?? true))
    }

    private func request(
        allowList: [PublicKeyCredentialDescriptor], up: Bool, verification: UserVerificationMethod,
        prf: PRFEvaluation? = nil, largeBlob: LargeBlobAccess? = nil
    ) -> GetAssertionRequest {
        var request = GetAssertionRequest(
            rpID: rpID, clientDataHash: clientDataHash, allowList: allowList,
            options: RequestOptions(up: up ? nil : false, uv: verification.usesBuiltIn ? true : nil))
        if let prf { request.extensions.setGetAssertionInput(HMACSecret.self, prf.input) }
        if largeBlob != nil { request.extensions.setGetAssertionInput(LargeBlobKey.self, true) }
        // getCredBlob (CTAP 2.1 §12.2) with the signing assertion; an authenticator without
        // credBlob ignores an extension it does not know (CTAP 2.1 §6.2).
        if up, options.extensions?.getCredBlob == true {
            request.extensions.setGetAssertionInput(CredBlob.self, true)
        }
        if case .token(let token) = verification {
            request.pinUvAuthParam = token.authenticate(clientDataHash)
            request.pinUvAuthProtocol = token.protocolVersion
        }
        return request
    }

    private func result(
        from response: GetAssertionResponse, prf: PRFEvaluation?, largeBlob: LargeBlobAccess?,
        session: CTAP2Session, info: GetInfoResponse, verification: UserVerificationMethod
    ) async -> AuthenticationResponseJSON {
        client.loggers.authentication.info("passkey assertion made", metadata: ["rp": "\(rpID)"])
        var outputs = AuthenticationExtensionsClientOutputsJSON()
        if let prf {
            outputs.prf = AuthenticationExtensionsPRFOutputsJSON(results: prf.results(in: response.authenticatorData))
        }
        if options.extensions?.getCredBlob == true {
            // An authenticator without credBlob, or a credential without a blob: empty, as CTAP 2.1 §12.2 has it.
            let blob = try? AuthenticatorData(bytes: response.authenticatorData).extensionOutputs()
                .getAssertionOutput(CredBlob.self)
            outputs.getCredBlob = blob ?? []
        }
        if let largeBlob {
            let token: PinUvAuthToken? = if case .token(let token) = verification { token } else { nil }
            outputs.largeBlob = await largeBlob.output(for: response, session: session, info: info, token: token)
        }
        return AuthenticationResponseJSON(
            credentialID: response.credential.id, clientDataJSON: clientDataJSON,
            authenticatorData: response.authenticatorData, signature: response.signature,
            userHandle: response.user?.id, authenticatorAttachment: Attachment(info).attachment,
            clientExtensionResults: outputs)
    }

    /// The prf values that apply to a credential (WebAuthn L3 §10.1.4): its own entry in
    /// evalByCredential, else eval. Nil when the RP asked for none or the authenticator lacks hmac-secret.
    private func prfEvaluation(for credentialID: [UInt8]?, session: CTAP2Session, info: GetInfoResponse)
        async throws(WebAuthnError) -> PRFEvaluation?
    {
        guard let prf = options.extensions?.prf else { return nil }
        if let byCredential = prf.evalByCredential, !byCredential.isEmpty, options.allowCredentials.isEmpty {
            throw .notSupported("prf evalByCredential needs allowCredentials.")
        }
        let values = credentialID.flatMap { prf.evalByCredential?[Base64URL.encode($0)] } ?? prf.eval
        guard let values, info.extensions.contains(HMACSecret.identifier) else { return nil }
        return try await call { () async throws(CTAP2Error) in
            try await PRFEvaluation.prepare(values, session: session, info: info)
        }
    }

    static func account(from response: GetAssertionResponse) -> PasskeyAccount {
        PasskeyAccount(
            credentialID: response.credential.id, userHandle: response.user?.id,
            name: response.user?.name, displayName: response.user?.displayName)
    }
}
