import CTAP

extension Authenticator {
    /// alwaysUv (CTAP 2.1 §6.11.2, and the alwaysUv steps of §6.1.2 and §6.2.2): while it is on,
    /// a request that brings no pinUvAuthParam must verify the user another way. With built-in
    /// UV it is asked for (the returned `uv` is true); otherwise a PIN-protected device answers
    /// `CTAP2_ERR_PUAT_REQUIRED` and an unprotected one `CTAP2_ERR_PIN_NOT_SET`.
    /// Returns whether the request asks for built-in user verification.
    func applyingAlwaysUv(requestsUV: Bool, tokenProtocol: PinUvAuthProtocolVersion?) async throws(CTAPStatus) -> Bool {
        guard try await deviceState().alwaysUv == true, tokenProtocol == nil, !requestsUV else { return requestsUV }
        if try await builtInUVConfigured() { return true }
        throw try await isProtectedByUV() ? .puatRequired : .pinNotSet
    }
}
