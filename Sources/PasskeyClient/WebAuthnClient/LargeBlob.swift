import CTAP
import WebAuthn

/// The largeBlob extension (WebAuthn L3 §10.1.5) at authentication, over CTAP's largeBlobKey
/// (CTAP 2.1 §12.3) and the large-blob array (§6.10): the assertion brings the credential's
/// key, then the client reads or rewrites the array.
enum LargeBlobAccess: Sendable {
    case read
    case write([UInt8])

    /// §10.1.5 client extension processing (authentication): `support` belongs to registration,
    /// read and write exclude each other, and a write names its one credential.
    init?(_ inputs: AuthenticationExtensionsLargeBlobInputsJSON?, allowCredentials: Int) throws(WebAuthnError) {
        guard let inputs else { return nil }
        if inputs.support != nil { throw .notSupported("largeBlob support is a registration input.") }
        switch (inputs.read == true, inputs.write) {
        case (true, nil): self = .read
        case (false, let blob?):
            guard allowCredentials == 1 else {
                throw .notSupported("A largeBlob write needs exactly one credential in allowCredentials.")
            }
            self = .write(blob)
        case (true, _?): throw .notSupported("largeBlob read and write cannot be asked for together.")
        case (false, nil): return nil
        }
    }

    /// A write needs a token with `lbw` when the authenticator is protected by user verification
    /// (§6.10.2 step 4.5); getAssertion leaves that permission on the token (§6.2.2).
    var permissions: PinUvAuthTokenPermissions {
        if case .write = self { .largeBlobWrite } else { [] }
    }

    /// The client output once the assertion is made: `blob` (absent when none is stored) or
    /// `written`. Failures leave the output empty or false, as the ceremony itself succeeded.
    func output(
        for response: GetAssertionResponse, session: CTAP2Session, info: GetInfoResponse,
        token: PinUvAuthToken?
    ) async -> AuthenticationExtensionsLargeBlobOutputsJSON {
        guard let key = response.largeBlobKey, let storage = LargeBlobsSession(session: session, info: info) else {
            if case .write = self { return .init(written: false) }
            return .init()
        }
        switch self {
        case .read:
            return .init(blob: (try? await storage.read())?.blob(for: key))
        case .write(let blob):
            do {
                let array = try await storage.read().setting(blob, for: key)
                try await storage.write(array, token: token)
                return .init(written: true)
            } catch {
                return .init(written: false)
            }
        }
    }
}
