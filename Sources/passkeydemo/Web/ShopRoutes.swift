import Foundation
import Hummingbird
import PasskeyClient
import RelyingParty
import WebAuthn

/// The shop (the SwiftUI seed app's six scenarios) on `http://localhost`: its pages and its
/// JSON API in front of the verifying `Site`. Who is signed in lives in a server-side session
/// named by an HttpOnly cookie.
struct ShopRoutes: Sendable {
    let site: Site
    let sessions = ShopSessions()
    static let cookie = "shop_session"

    func router() -> Router<BasicRequestContext> {
        let router = Router()
        router.get("/") { _, _ in Response.html(WebPages.featureList()) }
        router.get("/scenario/:name") { _, context in
            guard let scenario = context.parameters.get("name").flatMap(Scenario.init(rawValue:)) else {
                return Response.text("No such scenario.", status: .notFound)
            }
            return Response.html(WebPages.scenario(scenario))
        }
        router.get("/signed-in") { request, _ in
            guard let token = request.cookie(Self.cookie), let who = await sessions.user(token) else {
                return Response.redirect("/")
            }
            return Response.html(WebPages.signedIn(who))
        }
        router.get("/assets/:name") { _, context in Response.asset(context.parameters.get("name") ?? "") }

        router.post("/api/register/options") { request, _ in
            await answering {
                var request = request
                let body = try await request.json(Username.self)
                return .json(await site.registrationOptions(for: try body.validName(), excludeExisting: true))
            }
        }
        router.post("/api/register") { request, _ in
            await answering {
                var request = request
                let body = try await request.json(Registration.self)
                let credential = try await verifying { try await site.finishRegistration(body.credential) }
                return await signIn(ShopSessions.User(credential, method: "registered a passkey"))
            }
        }
        router.post("/api/sign-in/options") { _, _ in Response.json(await site.server.authenticationOptions()) }
        router.post("/api/sign-in") { request, _ in
            await answering {
                var request = request
                let body = try await request.json(Assertion.self)
                let verified = try await verifying { try await site.verified(body.credential) }
                return await signIn(ShopSessions.User(verified.credential, method: "signed in with a passkey"))
            }
        }
        router.post("/api/password") { request, _ in
            await answering {
                var request = request
                let body = try await request.json(Password.self)
                do {
                    try site.checkPassword(PasswordCredential(user: body.username, password: body.password))
                } catch {
                    throw APIError(
                        .unauthorized, "wrong-password", "That username and password do not match an account.")
                }
                return await signIn(ShopSessions.User(password: body.username, displayName: "Carol"))
            }
        }
        router.post("/api/sign-out") { request, _ in
            if let token = request.cookie(Self.cookie) { await sessions.end(token) }
            var response = Response.json(["signedOut": true])
            response.setCookie(sessionCookie(Self.cookie, "", maxAge: 0))
            return response
        }
        return router
    }

    /// The server verified who this is: a session and its cookie.
    private func signIn(_ user: ShopSessions.User) async -> Response {
        let token = await sessions.start(user)
        var response = Response.json(["user": user.name, "next": "/signed-in"])
        response.setCookie(sessionCookie(Self.cookie, token, maxAge: 3600))
        return response
    }

    /// The relying party's refusal, in words the page shows (WebAuthn L3 §7's failed step).
    private func verifying<T>(_ check: () async throws -> T) async throws -> T {
        do { return try await check() } catch {
            throw APIError(.unauthorized, "not-verified", "The server did not verify it: \(error).")
        }
    }

    struct Username: Decodable {
        let username: String

        /// A name the shop takes: 1 to 64 characters, no control characters.
        func validName() throws -> String {
            let name = username.trimmingCharacters(in: .whitespacesAndNewlines)
            guard (1...64).contains(name.count),
                !name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
            else {
                throw APIError(.badRequest, "bad-username", "Type a username of 1 to 64 characters.")
            }
            return name
        }
    }

    struct Registration: Decodable { let credential: RegistrationResponseJSON }
    struct Assertion: Decodable { let credential: AuthenticationResponseJSON }
    struct Password: Decodable {
        let username: String
        let password: String
    }
}

/// The shop's signed-in sessions: a random token (the cookie's value) to who signed in and how.
actor ShopSessions {
    struct User: Sendable {
        let name: String
        let displayName: String
        /// How the server verified them, as the success page says it.
        let method: String
        let credentialID: String?
        let algorithm: String?
        let signCount: UInt32?

        /// Who a passkey the server just verified belongs to (user handle = the name's bytes);
        /// the algorithm as the success page names it: `es256 (COSE -7)`.
        init(_ credential: RegisteredCredential, method: String) {
            name = String(decoding: credential.userHandle, as: UTF8.self)
            displayName = name.capitalized
            self.method = method
            credentialID = Base64URL.encode(credential.id)
            algorithm = "\(credential.publicKey.algorithm) (COSE \(credential.publicKey.algorithm.rawValue))"
            signCount = credential.signCount
        }

        /// Someone the server's password check let in.
        init(password username: String, displayName: String) {
            name = username
            self.displayName = displayName
            method = "signed in with a saved password"
            credentialID = nil
            algorithm = nil
            signCount = nil
        }
    }

    private var users: [String: User] = [:]

    func start(_ user: User) -> String {
        var generator = SystemRandomNumberGenerator()
        let token = Base64URL.encode((0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) })
        users[token] = user
        return token
    }

    func user(_ token: String) -> User? { users[token] }

    func end(_ token: String) { users[token] = nil }
}
