import CTAP

extension WebAuthnClient {
    /// Turns a CTAP2 failure into the DOMException WebAuthn L3 §5.1.3/§5.1.4 prescribes,
    /// keeping the status underneath. The sentence says what happened; what to do about it
    /// (which command to run) is the application's to add, as passkeyctl does. A sentence that
    /// would name a local path (the socket's, which names the user) is generic, since a web page
    /// reads it; the path is in `detail`, for the person at this machine.
    func mapError(_ error: CTAP2Error, rpID: String) -> WebAuthnError {
        switch error {
        case .transport(.unreachable(let address)):
            return .notAllowed(
                Self.unavailable, cause: .transport(.unreachable(address)),
                detail: "Unable to reach the authenticator at \(address): nothing accepts connections there.")
        case .transport(.untrusted(let sentence)):
            return .notAllowed(
                "The authenticator is not available: what answers in its place is not the user's own passkeyd.",
                cause: .transport(.untrusted(sentence)), detail: sentence)
        case .transport(let failure):
            return .notAllowed(
                "The connection to the authenticator failed. You can try again.", cause: .transport(failure))
        case .malformedResponse:
            return .unknown("The authenticator sent a response this client cannot read.")
        case .status(let status):
            return mapStatus(status, rpID: rpID)
        }
    }

    /// What a page hears when passkeyd cannot be reached.
    static let unavailable = "The authenticator is not available: passkeyd is not running, or cannot be reached."

    func mapStatus(_ status: CTAPStatus, rpID: String) -> WebAuthnError {
        let cause = WebAuthnError.Cause.ctap(status)
        switch status {
        case .credentialExcluded:
            return .invalidState(
                "This authenticator already holds a passkey for this account on \(rpID).", cause: cause)
        case .keepaliveCancel:
            return .abort("The request was cancelled. You can try again.", cause: cause)
        case .unsupportedAlgorithm:
            return .notSupported("The authenticator supports none of the site's algorithms.", cause: cause)
        default:
            return .notAllowed(Self.notAllowedSentence(status, rpID: rpID), cause: cause)
        }
    }

    /// What a NotAllowedError says about each status that ends in one.
    private static func notAllowedSentence(_ status: CTAPStatus, rpID: String) -> String {
        switch status {
        case .noCredentials: "Passkey not recognized: this authenticator has no passkey for \(rpID)."
        case .operationDenied: "The request was denied on the authenticator."
        case .userActionTimeout, .actionTimeout: "Nobody confirmed on the authenticator in time."
        case .keyStoreFull: "The authenticator has no room for another passkey."
        case .pinBlocked: "The PIN is blocked: the authenticator must be reset."
        case .pinAuthBlocked:
            "Too many wrong PINs in a row: the authenticator takes no more until it is unplugged and plugged in again."
        case .uvBlocked: "User verification is blocked on this authenticator; use the PIN."
        case .uvInvalid: "User verification failed."
        case .puatRequired:  // CTAP 2.0's PIN_REQUIRED is the same code, 0x36
            "The authenticator requires user verification for this request."
        default: "The authenticator refused the request."
        }
    }
}
