import CTAP
import CTAPHID
import PasskeyClient

/// passkeyctl's line to the daemon: the CTAPHID transport on the socket and a CTAP2 session over it.
/// Every error leaves as a `Failure`.
struct Connection: Sendable {
    let socket: String
    let transport: UnixSocketTransport
    let session: CTAP2Session

    init(socket: String) {
        self.socket = socket
        transport = UnixSocketTransport(path: socket)
        let notice = PresenceNotice()
        session = CTAP2Session(transport: transport, onKeepalive: { notice.heard($0) })
    }

    /// Runs CTAP2 calls, reading their errors as a person would.
    func run<T>(_ body: () async throws(CTAP2Error) -> T) async throws(Failure) -> T {
        do { return try await body() } catch { throw Failure(error, socket: socket) }
    }

    func info() async throws(Failure) -> GetInfoResponse {
        try await run { () async throws(CTAP2Error) in try await session.getInfo() }
    }

    /// The keystore's test attestation root, DER (docs/vendor-commands.md).
    func attestationRoot() async throws(Failure) -> [UInt8] {
        try await run { () async throws(CTAP2Error) in try await session.attestationRoot() }
    }

    func clientPIN(_ info: GetInfoResponse) throws(Failure) -> ClientPINSession {
        do { return try ClientPINSession(session: session, info: info) } catch {
            throw .refused("The authenticator supports no PIN/UV auth protocol passkeyctl knows.")
        }
    }

    /// One of passkeyd's vendor commands (docs/vendor-commands.md).
    func vendor(_ command: VendorCommand, payload: [UInt8] = []) async throws(Failure) -> [UInt8] {
        do { return try await transport.vendor(command, payload: payload) } catch {
            throw Failure(error, socket: socket)
        }
    }

    /// A pinUvAuthToken with `permissions` (at least `cm`): from the PIN when one is set, else from
    /// built-in user verification (CTAP 2.1 §6.5.5.7), else the person is told to set a PIN.
    /// `known` spares a getInfo the caller already made.
    func managementSession(
        pinFile: String?, info known: GetInfoResponse? = nil,
        permissions: PinUvAuthTokenPermissions = .cm
    ) async throws(Failure) -> CredentialManagementSession {
        let info: GetInfoResponse
        if let known { info = known } else { info = try await self.info() }
        guard CredentialManagementSession.command(for: info) != nil else {
            throw .refused("This authenticator does not support credential management.")
        }
        let token = try await token(
            permissions: permissions, info: info, pinFile: pinFile, purpose: "Managing credentials")
        do { return try CredentialManagementSession(session: session, token: token, info: info) } catch {
            throw Failure(error, socket: socket)
        }
    }

    /// A pinUvAuthToken with `permissions`: from the PIN when one is set, else from built-in
    /// user verification; `purpose` names what needs it when the device has neither.
    func token(
        permissions: PinUvAuthTokenPermissions, info: GetInfoResponse, pinFile: String?,
        purpose: String
    ) async throws(Failure) -> PinUvAuthToken {
        let clientPIN = try clientPIN(info)
        if info.options["clientPin"] == true {
            let pin = try PINEntry.current(file: pinFile)
            return try await self.token(clientPIN) { () async throws(CTAP2Error) in
                try await clientPIN.tokenUsingPIN(pin, permissions: permissions, rpID: nil)
            }
        } else if info.options["uv"] == true, info.options["pinUvAuthToken"] == true {
            // CTAP 2.1 §6.5.5.7.3 needs pinUvAuthToken: a 2.0 or 2.1-PRE key has no UV token subcommand.
            return try await run { () async throws(CTAP2Error) in
                try await clientPIN.tokenUsingUV(permissions: permissions, rpID: nil)
            }
        }
        throw .refused("\(purpose) needs a PIN and this authenticator has none. Set one with `passkeyctl pin set`.")
    }

    /// Runs a PIN operation; a wrong or blocked PIN is reported with the tries left.
    func token<T>(_ clientPIN: ClientPINSession, _ body: () async throws(CTAP2Error) -> T) async throws(Failure) -> T {
        do {
            return try await body()
        } catch .status(.pinInvalid) {
            throw .wrongPIN(retriesLeft: try? await clientPIN.pinRetries().retries)
        } catch .status(.pinAuthBlocked) {
            throw .pinAuthBlocked(retriesLeft: try? await clientPIN.pinRetries().retries)
        } catch {
            throw Failure(error, socket: socket)
        }
    }
}
