import CTAP
import Crypto
import WebAuthn

extension Ceremony {
    /// A modal get() on a CTAP1/U2F-only key: authenticatorGetAssertion mapped onto
    /// U2F_AUTHENTICATE as CTAP 2.1 §10.3 has it. A U2F key finds no credential by itself, so the
    /// allow list names the candidates: check-only (P1 0x07, no presence) finds the first key
    /// handle the key made for this RP, the person approves, and that one signs enforcing presence
    /// (P1 0x03). Saved passwords are not offered here: there is no account to show beside them.
    ///
    /// As Chromium's U2fSignOperation does, an empty allow list, or one the key knows none of,
    /// waits for a touch (a registration for nobody, so the person sees the key answer) and then
    /// fails NotAllowedError, as CTAP2_ERR_NO_CREDENTIALS does. User verification required is
    /// NotAllowedError at once: U2F has none (Chromium finds no suitable authenticator).
    func modalOverCTAP1() async throws(WebAuthnError) -> GetResult {
        guard options.userVerification != .required else {
            throw .notAllowed("This security key cannot verify the user.")
        }
        let session = client.makeCTAP1Session()
        let application = Array(SHA256.hash(data: Array(rpID.utf8)))
        var recognized: [UInt8]?
        for credential in allowList {
            let known = try await call { () async throws(CTAP2Error) in
                try await session.recognizes(keyHandle: credential.id, application: application)
            }
            if known {
                recognized = credential.id
                break
            }
        }
        guard let keyHandle = recognized else {
            try await call { () async throws(CTAP2Error) in try await session.waitForTouch() }
            throw client.mapStatus(.noCredentials, rpID: rpID)
        }
        try await approve(nil)
        let signed = try await call { () async throws(CTAP2Error) in
            try await session.authenticate(keyHandle: keyHandle, challenge: clientDataHash, application: application)
        }
        // Known a moment ago and refused now: the key forgot it (a reset) between the two commands.
        guard let signed else { throw client.mapStatus(.noCredentials, rpID: rpID) }
        client.loggers.authentication.info("U2F assertion made", metadata: ["rp": "\(rpID)"])
        // §10.3: rpIdHash ‖ the presence byte as flags ‖ the counter: what the U2F signature covers
        // before the clientDataHash, so it verifies as a CTAP2 assertion's does.
        let authenticatorData =
            application + [signed.userPresence] + withUnsafeBytes(of: signed.counter.bigEndian, Array.init)
        var outputs = AuthenticationExtensionsClientOutputsJSON()
        if options.extensions?.getCredBlob == true { outputs.getCredBlob = [] }
        return .passkey(
            AuthenticationResponseJSON(
                credentialID: keyHandle, clientDataJSON: clientDataJSON, authenticatorData: authenticatorData,
                signature: signed.signature, userHandle: nil,
                authenticatorAttachment: Attachment(AuthenticatorProtocol.ctap1Info).attachment,
                clientExtensionResults: outputs))
    }

    /// Conditional mediation with a U2F-only key: it has no discoverable credential to suggest,
    /// so only saved passwords are; the request waits for the person as the page does.
    func conditionalOverCTAP1() async throws(WebAuthnError) -> GetResult {
        let picked = await client.userAgent.offerSuggestions(passwords.map(CredentialChoice.password), rpID: rpID)
        if Task.isCancelled { throw .abort("The AutoFill request was cancelled. A new request can start now.") }
        guard case .password(let password)? = picked else { throw .notAllowed("The suggestions were dismissed.") }
        return .password(password)
    }

    /// Immediate mediation with a U2F-only key: none of its credentials is known without the
    /// allow list and a touch, so only saved passwords can answer; without them it fails at once.
    func immediateOverCTAP1() async throws(WebAuthnError) -> GetResult {
        guard !passwords.isEmpty else {
            throw .notAllowed("No passkey for \(rpID) is available on this device.", cause: .ctap(.noCredentials))
        }
        let choices = passwords.map(CredentialChoice.password)
        guard case .password(let password)? = await client.userAgent.chooseCredential(from: choices, rpID: rpID)
        else { throw .notAllowed("The request was cancelled.") }
        return .password(password)
    }
}
