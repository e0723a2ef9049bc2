import Foundation
import Hummingbird
import Logging

/// `passkeydemo --web`: the seed apps as web pages on 127.0.0.1, one server for two sites told
/// apart by the Host header — the shop on `localhost` (RP ID `localhost`) and the courier app on
/// `courier.localhost`. Browsers resolve `*.localhost` to loopback and treat it as a secure
/// context (W3C Secure Contexts §3.1), so WebAuthn runs on plain http there.
///
/// Hummingbird serves HTTP: a maintained HTTP/1.1 server over swift-nio (already a dependency),
/// rather than a parser and keep-alive handling of our own.
struct WebServer {
    static let shopHost = "localhost"
    static let courierHost = "courier.localhost"

    let port: Int
    let stateDirectory: String
    let offline: Bool

    func run() async throws {
        let shop = ShopRoutes(site: Site(id: Self.shopHost, name: "Passkey Shop", origin: origin(Self.shopHost)))
        let courier = CourierRoutes(
            server: CourierServer(
                databasePath: stateDirectory + "/courier-server.json", reachable: !offline,
                rpID: Self.courierHost, origin: origin(Self.courierHost)))
        let responder = HostDispatch(
            shop: shop.router().buildResponder(), courier: courier.router().buildResponder(),
            shopPolicy: SameOriginPolicy(origin: origin(Self.shopHost)),
            courierPolicy: SameOriginPolicy(origin: origin(Self.courierHost)))
        var logger = Logger(label: "passkeydemo.web")
        logger.logLevel = .warning
        let app = Application(
            responder: responder,
            configuration: .init(address: .hostname("127.0.0.1", port: port), serverName: "passkeydemo"),
            onServerRunning: { _ in
                // Unbuffered: a script waiting for this line sees it at once.
                let line =
                    "passkeydemo web: the shop at \(origin(Self.shopHost))/ and the courier app at \(origin(Self.courierHost))/\n"
                FileHandle.standardOutput.write(Data(line.utf8))
            },
            logger: logger)
        try await app.runService()
    }

    /// The origin a page on `host` has: its relying party accepts responses from it only.
    private func origin(_ host: String) -> String {
        "http://\(host):\(port)"
    }
}

/// Sends each request to the site its Host header names, past that site's `SameOriginPolicy`;
/// any other host (an attacker's name resolving to 127.0.0.1, DNS rebinding) gets 421
/// Misdirected Request (RFC 9110 §15.5.20). Every answer, refusals too, refuses framing.
struct HostDispatch: HTTPResponder {
    let shop: RouterResponder<BasicRequestContext>
    let courier: RouterResponder<BasicRequestContext>
    let shopPolicy: SameOriginPolicy
    let courierPolicy: SameOriginPolicy

    func respond(to request: Request, context: BasicRequestContext) async throws -> Response {
        SameOriginPolicy.unframeable(try await routed(request, context: context))
    }

    private func routed(_ request: Request, context: BasicRequestContext) async throws -> Response {
        switch request.hostName {
        case WebServer.shopHost:
            if let refusal = shopPolicy.refusal(of: request) { return refusal }
            return try await shop.respond(to: request, context: context)
        case WebServer.courierHost:
            if let refusal = courierPolicy.refusal(of: request) { return refusal }
            return try await courier.respond(to: request, context: context)
        default:
            return .text(
                "This server answers only http://localhost and http://courier.localhost.", status: .misdirectedRequest)
        }
    }
}
