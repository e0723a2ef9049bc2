import CBOR
import CTAP
import Crypto
import Foundation
import RelyingParty
import WebAuthn

/// The courier app's backend (the second seed app): a relying party that keeps its accounts,
/// passkeys and sessions in a file, as a server keeps them in its database, so a session
/// survives the app's restart and is checked here, never trusted from the device. With
/// `reachable` false every call fails as a server that cannot be reached.
actor CourierServer {
    /// The terminal app's RP ID and origin; the web demo's are `courier.localhost` and its http origin.
    static let rpID = "courier.passkeyd.test"
    static let origin = "https://\(rpID)"

    /// Why the server did not do what the app asked.
    enum Failure: Error, Equatable {
        case unreachable
        case usernameTaken(String)
        /// The passkey is not one this server knows (an account deleted, another site's key).
        case notRecognized
        case rejected(VerificationError)
    }

    /// What the server's database holds.
    private struct Database: Codable {
        var accounts: [String: Account] = [:]
        /// SHA-256 of each live session token, hex, to the username: the token itself is never stored.
        var sessions: [String: String] = [:]
    }

    private struct Account: Codable {
        var userHandle: String
        var passkeys: [StoredPasskey]
    }

    /// A credential record (WebAuthn L3 §7.1 step 27) in the database's form.
    private struct StoredPasskey: Codable {
        var id: String
        var publicKey: String
        var signCount: UInt32

        init(_ credential: RegisteredCredential) {
            id = Base64URL.encode(credential.id)
            publicKey = Base64URL.encode(credential.publicKeyCOSE)
            signCount = credential.signCount
        }

        func record(userHandle: [UInt8]) -> RegisteredCredential? {
            guard let id = try? Base64URL.decode(id), let bytes = try? Base64URL.decode(publicKey),
                let cbor = try? CBORDecoder.decode(bytes), let key = try? COSEKey(cbor: cbor)
            else { return nil }
            return RegisteredCredential(id: id, publicKey: key, signCount: signCount, userHandle: userHandle)
        }
    }

    let relyingParty: RelyingParty
    let databasePath: String
    /// False while the device is offline: every call fails as unreachable.
    private(set) var reachable: Bool
    private var database: Database

    init(databasePath: String, reachable: Bool, rpID: String = rpID, origin: String = origin) {
        relyingParty = RelyingParty(id: rpID, name: "Courier", origins: [origin])
        self.databasePath = databasePath
        self.reachable = reachable
        database =
            (try? JSONDecoder().decode(Database.self, from: Data(contentsOf: URL(fileURLWithPath: databasePath))))
            ?? Database()
    }

    /// The web demo's offline switch: the network goes away, or comes back.
    func setReachable(_ value: Bool) { reachable = value }

    private func reach() throws(Failure) {
        guard reachable else { throw .unreachable }
    }

    private func save() {
        guard let data = try? JSONEncoder().encode(database) else { return }
        FileManager.default.createFile(atPath: databasePath, contents: data, attributes: [.posixPermissions: 0o600])
    }

    private static func digest(_ token: String) -> String {
        SHA256.hash(data: Data(token.utf8)).map { String(format: "%02x", $0) }.joined()
    }

    private func newSession(for username: String) -> String {
        var generator = SystemRandomNumberGenerator()
        let token = Base64URL.encode((0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) })
        database.sessions[Self.digest(token)] = username
        save()
        return token
    }

    /// Options to create `username`'s account with a passkey (a discoverable credential).
    func registrationOptions(username: String) async throws(Failure) -> PublicKeyCredentialCreationOptionsJSON {
        try reach()
        guard database.accounts[username] == nil else { throw .usernameTaken(username) }
        var generator = SystemRandomNumberGenerator()
        let handle = (0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) }
        return await relyingParty.registrationOptions(
            user: PublicKeyCredentialUserEntityJSON(id: handle, name: username, displayName: username))
    }

    /// Verifies the new passkey, creates the account and signs it in: the session token.
    func finishRegistration(_ response: RegistrationResponseJSON, username: String) async throws(Failure) -> String {
        try reach()
        let credential: RegisteredCredential
        do { credential = try await relyingParty.finishRegistration(response) } catch { throw .rejected(error) }
        database.accounts[username] = Account(
            userHandle: Base64URL.encode(credential.userHandle), passkeys: [StoredPasskey(credential)])
        return newSession(for: username)
    }

    /// Options for a username-less sign-in.
    func authenticationOptions() async throws(Failure) -> PublicKeyCredentialRequestOptionsJSON {
        try reach()
        return await relyingParty.authenticationOptions()
    }

    /// Verifies the assertion against the stored passkey: who signed in, and their session token.
    func finishAuthentication(_ response: AuthenticationResponseJSON) async throws(Failure) -> (
        username: String, token: String
    ) {
        try reach()
        let known = database.accounts.flatMap { name, account in
            account.passkeys.compactMap { stored in
                (try? Base64URL.decode(account.userHandle)).flatMap { stored.record(userHandle: $0) }.map { (name, $0) }
            }
        }
        let records = Dictionary(known.map { ($0.1.id, $0) }, uniquingKeysWith: { first, _ in first })
        let verified: VerifiedAuthentication
        do {
            verified = try await relyingParty.finishAuthentication(response, credential: { records[$0]?.1 })
        } catch .unknownCredential {
            throw .notRecognized
        } catch {
            throw .rejected(error)
        }
        guard let (username, _) = records[verified.credential.id] else { throw .notRecognized }
        if let index = database.accounts[username]?.passkeys.firstIndex(where: {
            $0.id == Base64URL.encode(verified.credential.id)
        }) {
            database.accounts[username]?.passkeys[index].signCount = verified.credential.signCount
        }
        return (username, newSession(for: username))
    }

    /// The account a session token belongs to; nil when the server does not know it (signed out, never issued).
    func resume(_ token: String) throws(Failure) -> String? {
        try reach()
        return database.sessions[Self.digest(token)]
    }

    /// Ends the session on the server.
    func signOut(_ token: String) throws(Failure) {
        try reach()
        database.sessions[Self.digest(token)] = nil
        save()
    }
}
