import Authenticator
import CTAP
import Logging
import RelyingParty
import Testing
import WebAuthn

@testable import PasskeyClient

/// A WebAuthn client for https://example.com over the in-process transport, an
/// authenticator behind it, and a relying party that verifies for real.
struct ClientHarness {
    let store = InMemoryCredentialStore()
    let presence: ScriptedPresence
    let verifier: ScriptedVerifier?
    let authenticator: Authenticator
    let userAgent: ScriptedUserAgent
    let client: WebAuthnClient
    let rp = RelyingParty(
        id: "example.com", name: "Example", origins: ["https://example.com"],
        algorithms: [.es256, .edDSA, .es384, .es512])
    let registered = RegisteredCredentials()

    init(
        presence: [PresenceOutcome] = [.approved], verifier: ScriptedVerifier? = .always(.verified),
        picks: [ScriptedUserAgent.Pick] = [.first], pins: [String?] = [], newPIN: String? = nil,
        transport: (any CTAPTransport)? = nil,
        wrap: (any CTAPTransport) -> any CTAPTransport = { $0 }
    ) throws {
        self.presence = ScriptedPresence(presence)
        self.verifier = verifier
        authenticator = Authenticator(
            store: store, presence: self.presence, verifier: verifier,
            logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }))
        userAgent = ScriptedUserAgent(picks: picks, pins: pins, newPIN: newPIN)
        client = try WebAuthnClient(
            transport: wrap(transport ?? InProcessTransport(device: authenticator)),
            origin: "https://example.com", userAgent: userAgent)
    }

    /// Sets the authenticator's PIN the way a platform does, through authenticatorClientPIN.
    func setPIN(_ pin: String) async throws {
        let session = CTAP2Session(transport: InProcessTransport(device: authenticator))
        try await ClientPINSession(session: session, info: try await session.getInfo()).setPIN(pin)
    }

    static func user(_ name: String) -> PublicKeyCredentialUserEntityJSON {
        PublicKeyCredentialUserEntityJSON(id: Array(name.utf8), name: name, displayName: name.capitalized)
    }

    /// Registers a passkey through the client and has the relying party verify it.
    @discardableResult
    func register(_ name: String, algorithm: COSEAlgorithm = .es256) async throws -> RegisteredCredential {
        var options = await rp.registrationOptions(user: Self.user(name))
        options.pubKeyCredParams = [PublicKeyCredentialParametersJSON(algorithm)]
        let response = try await client.create(options)
        let credential = try await rp.finishRegistration(response)
        await registered.put(credential)
        return credential
    }

    /// Verifies an assertion with the relying party; returns the user handle it authenticated.
    func verify(_ result: GetResult) async throws -> [UInt8] {
        guard case .passkey(let response) = result else {
            Issue.record("expected a passkey, got \(result)")
            throw WebAuthnError.unknown("not a passkey")
        }
        let registered = self.registered
        let verified = try await rp.finishAuthentication(response, credential: { id in await registered.get(id) })
        await registered.put(verified.credential)
        return verified.userHandle
    }
}

/// Runs `body`, expecting a WebAuthnError with this name.
func expectWebAuthnError<T>(
    _ name: WebAuthnError.Name, _ body: () async throws -> T,
    sourceLocation: SourceLocation = #_sourceLocation
) async {
    do {
        _ = try await body()
        Issue.record("expected \(name.rawValue)", sourceLocation: sourceLocation)
    } catch let error as WebAuthnError {
        #expect(error.name == name, "\(error)", sourceLocation: sourceLocation)
    } catch {
        Issue.record("unexpected error \(error)", sourceLocation: sourceLocation)
    }
}

/// What the relying party's database would hold.
actor RegisteredCredentials {
    private var byID: [[UInt8]: RegisteredCredential] = [:]
    func put(_ credential: RegisteredCredential) { byID[credential.id] = credential }
    func get(_ id: [UInt8]) -> RegisteredCredential? { byID[id] }
}

/// The WebAuthnError `body` throws, or nil (with an issue recorded) when it throws nothing or something else.
func webAuthnError<T>(_ body: () async throws -> T, sourceLocation: SourceLocation = #_sourceLocation) async
    -> WebAuthnError?
{
    do {
        _ = try await body()
    } catch {
        if let error = error as? WebAuthnError { return error }
        Issue.record("unexpected error \(error)", sourceLocation: sourceLocation)
        return nil
    }
    Issue.record("expected a WebAuthnError", sourceLocation: sourceLocation)
    return nil
}
