import CTAP
import CTAPHID

/// What a ceremony speaks to the authenticator, found before its first command: CTAP2 with what
/// getInfo says, or CTAP1/U2F alone (CTAP 2.1 §10, "Interoperating with CTAP1/U2F
/// authenticators"), which a browser drives by mapping each WebAuthn operation onto U2F commands.
enum AuthenticatorProtocol: Sendable {
    case ctap2(GetInfoResponse)
    case ctap1

    /// What a U2F-only key is taken to report, as Chromium models one: U2F_V2 alone, no
    /// options (no resident keys, no user verification, no PIN), no extensions, reached over USB.
    /// Checks written for getInfo (`Attachment`, largeBlob, credProtect) read it unchanged.
    static let ctap1Info = GetInfoResponse(
        versions: ["U2F_V2"], aaguid: [UInt8](repeating: 0, count: 16), transports: ["usb"])
}

extension WebAuthnClient {
    /// Finds the protocol: the transport's CTAPHID_INIT capability flags first (CBOR absent and
    /// MSG served: CTAP1 only, CTAP 2.1 §11.2.9.1.3), else getInfo, where a refusal as an unknown
    /// command (CTAPHID_ERR_INVALID_CMD, or CTAP1_ERR_INVALID_COMMAND) means a key that knows no
    /// CTAP2 (§10: "the platform MAY fall back to CTAP1/U2F").
    func authenticatorProtocol(_ session: CTAP2Session, rpID: String) async throws(WebAuthnError)
        -> AuthenticatorProtocol
    {
        let protocols: CTAPProtocols
        do { protocols = try await transport.protocols() } catch { throw mapError(.transport(error), rpID: rpID) }
        if !protocols.contains(.ctap2), protocols.contains(.ctap1) { return .ctap1 }
        do {
            return .ctap2(try await session.getInfo())
        } catch .transport(.deviceError(CTAPHIDError.invalidCommand.rawValue)), .status(.invalidCommand) {
            return .ctap1
        } catch {
            throw mapError(error, rpID: rpID)
        }
    }

    /// A CTAP1/U2F session whose keepalives reach the user agent, as `makeSession`'s do.
    func makeCTAP1Session() -> CTAP1Session {
        let session = makeSession()
        return CTAP1Session(transport: transport, onKeepalive: session.onKeepalive)
    }
}
