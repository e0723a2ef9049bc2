import Foundation
import Hummingbird
import WebAuthn

/// The courier app (the second seed app) on `http://courier.localhost`: one page that is the
/// app's screens, and a JSON API in front of `CourierServer`, whose database in --state-dir
/// keeps accounts and sessions across a restart. The session token travels only in an HttpOnly
/// cookie; the server keeps its digest.
struct CourierRoutes: Sendable {
    let server: CourierServer
    static let cookie = "courier_session"
    /// A restored session lasts as long as the app's would: 30 days.
    static let sessionAge = 30 * 24 * 3600

    func router() -> Router<BasicRequestContext> {
        let router = Router()
        router.get("/") { _, _ in Response.html(WebPages.courier()) }
        router.get("/assets/:name") { _, context in Response.asset(context.parameters.get("name") ?? "") }

        /// The saved session, checked by the server at the app's start.
        router.post("/api/session") { request, _ in
            await answering {
                guard let token = request.cookie(Self.cookie) else {
                    return .json(SessionState(username: nil, ended: false))
                }
                guard let username = try await courier({ try await server.resume(token) }) else {
                    var response = Response.json(SessionState(username: nil, ended: true))
                    response.setCookie(sessionCookie(Self.cookie, "", maxAge: 0))
                    return response
                }
                return .json(SessionState(username: username, ended: false))
            }
        }
        router.post("/api/account/options") { request, _ in
            await answering {
                var request = request
                let name = try await request.json(ShopRoutes.Username.self).validName()
                return .json(try await courier { try await server.registrationOptions(username: name) })
            }
        }
        router.post("/api/account") { request, _ in
            await answering {
                var request = request
                let body = try await request.json(NewAccount.self)
                let name = try ShopRoutes.Username(username: body.username).validName()
                let token = try await courier { try await server.finishRegistration(body.credential, username: name) }
                return signedIn(name, token: token)
            }
        }
        router.post("/api/sign-in/options") { _, _ in
            await answering { .json(try await courier { try await server.authenticationOptions() }) }
        }
        router.post("/api/sign-in") { request, _ in
            await answering {
                var request = request
                let body = try await request.json(ShopRoutes.Assertion.self)
                let (name, token) = try await courier { try await server.finishAuthentication(body.credential) }
                return signedIn(name, token: token)
            }
        }
        router.post("/api/sign-out") { request, _ in
            await answering {
                if let token = request.cookie(Self.cookie) { try await courier { try await server.signOut(token) } }
                var response = Response.json(SessionState(username: nil, ended: true))
                response.setCookie(sessionCookie(Self.cookie, "", maxAge: 0))
                return response
            }
        }
        /// The demo's offline switch: the phone's network, not the server, so it always answers.
        router.get("/api/network") { _, _ in Response.json(Network(online: await server.reachable)) }
        router.post("/api/network") { request, _ in
            await answering {
                var request = request
                let online = try await request.json(Network.self).online
                await server.setReachable(online)
                return .json(Network(online: online))
            }
        }
        return router
    }

    private func signedIn(_ username: String, token: String) -> Response {
        var response = Response.json(SessionState(username: username, ended: false))
        response.setCookie(sessionCookie(Self.cookie, token, maxAge: Self.sessionAge))
        return response
    }

    /// The server's failures as the app's sentences (Courier.Sentence).
    private func courier<T>(_ call: () async throws -> T) async throws -> T {
        do { return try await call() } catch let error as CourierServer.Failure {
            switch error {
            case .unreachable:
                throw APIError(.serviceUnavailable, "unreachable", Courier.Sentence.unreachable)
            case .usernameTaken(let name):
                throw APIError(.conflict, "username-taken", "The username \(name) is taken. Choose another.")
            case .notRecognized, .rejected:
                throw APIError(.unauthorized, "not-recognized", Courier.Sentence.notRecognized)
            }
        }
    }

    struct SessionState: Codable {
        let username: String?
        /// The browser held a session the server no longer knows.
        let ended: Bool
    }

    struct NewAccount: Decodable {
        let username: String
        let credential: RegistrationResponseJSON
    }

    struct Network: Codable { let online: Bool }
}
