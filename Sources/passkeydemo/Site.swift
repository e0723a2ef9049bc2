import Crypto
import Foundation
import PasskeyClient
import RelyingParty
import WebAuthn

/// A web site: its relying-party server, the credentials it has registered, and the
/// one password account it knows.
struct Site: Sendable {
    let server: RelyingParty
    let accounts = Accounts()

    /// The one origin its pages are served from.
    let origin: String

    /// A site at `origin`, by default `https://ID` (the terminal demo's); the web demo's is `http://localhost:PORT`.
    init(id: String, name: String, origin: String? = nil) {
        self.origin = origin ?? "https://\(id)"
        server = RelyingParty(id: id, name: name, origins: [self.origin])
    }

    /// What the server's database holds: registered passkeys by credential ID.
    actor Accounts {
        var byCredentialID: [[UInt8]: RegisteredCredential] = [:]
        func add(_ credential: RegisteredCredential) { byCredentialID[credential.id] = credential }
        func credential(_ id: [UInt8]) -> RegisteredCredential? { byCredentialID[id] }
        func owners() -> Set<String> {
            Set(byCredentialID.values.map { String(decoding: $0.userHandle, as: UTF8.self) })
        }
    }

    /// Registers `name` (user handle = the name's bytes) and has the server verify it.
    @discardableResult
    func register(_ name: String, with client: WebAuthnClient, excludeExisting: Bool = false) async throws
        -> RegisteredCredential
    {
        let options = await registrationOptions(for: name, excludeExisting: excludeExisting)
        return try await finishRegistration(try await client.create(options))
    }

    /// Options to register a passkey for `name`; with `excludeExisting`, the passkeys it has here
    /// go in `excludeCredentials` (WebAuthn L3 §5.4), so the authenticator refuses a second one.
    func registrationOptions(for name: String, excludeExisting: Bool) async -> PublicKeyCredentialCreationOptionsJSON {
        let mine = await accounts.byCredentialID.values.filter { $0.userHandle == Array(name.utf8) }
        return await server.registrationOptions(
            user: PublicKeyCredentialUserEntityJSON(id: Array(name.utf8), name: name, displayName: name.capitalized),
            excludeCredentials: excludeExisting ? mine.map(\.descriptor) : [])
    }

    /// The server's check of a new passkey; the database keeps it.
    func finishRegistration(_ response: RegistrationResponseJSON) async throws -> RegisteredCredential {
        let credential = try await server.finishRegistration(response)
        await accounts.add(credential)
        return credential
    }

    /// Makes sure these accounts have passkeys here, so any scenario can run on its own.
    func ensureAccounts(_ names: [String], transport: any CTAPTransport) async throws {
        let known = await accounts.owners()
        let client = try WebAuthnClient(transport: transport, origin: origin, userAgent: ScriptedUserAgent())
        for name in names where !known.contains(name) {
            try await register(name, with: client)
        }
    }

    /// Runs a sign-in and has the server verify the assertion; returns who signed in.
    func signIn(
        with client: WebAuthnClient, mediation: Mediation = .optional,
        passwords: [PasswordCredential] = []
    ) async throws -> String {
        let options = await server.authenticationOptions()
        guard case .passkey(let assertion) = try await client.get(options, mediation: mediation, passwords: passwords)
        else {
            throw ScenarioFailure("expected a passkey, got a password")
        }
        return try await verify(assertion)
    }

    /// The server's check of an assertion; returns who signed in.
    func verify(_ assertion: AuthenticationResponseJSON) async throws -> String {
        String(decoding: try await verified(assertion).userHandle, as: UTF8.self)
    }

    /// The server's check of an assertion (WebAuthn L3 §7.2), the stored signature counter updated.
    func verified(_ assertion: AuthenticationResponseJSON) async throws -> VerifiedAuthentication {
        let accounts = self.accounts
        let verified = try await server.finishAuthentication(assertion, credential: { await accounts.credential($0) })
        await accounts.add(verified.credential)
        return verified
    }

    /// The one password account, as the browser's password manager has it saved.
    static let savedPassword = PasswordCredential(
        user: "carol@shop.passkeyd.test", password: "correct horse battery staple")

    /// The server's password check for its one password account. The passwords are compared as
    /// SHA-256 digests, whose equality is constant-time: how long it takes says nothing of how
    /// much of a guess was right (the web demo takes guesses from any page on this machine).
    func checkPassword(_ password: PasswordCredential) throws {
        let digest = { (text: String) in SHA256.hash(data: Data(text.utf8)) }
        guard password.user == Self.savedPassword.user, digest(password.password) == digest(Self.savedPassword.password)
        else {
            throw ScenarioFailure("the server rejected the password")
        }
    }
}
