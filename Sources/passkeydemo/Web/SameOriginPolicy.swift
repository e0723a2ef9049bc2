import Foundation
import Hummingbird

/// What the demo's two sites let other origins do: nothing that changes state, and no framing.
///
/// The session cookies are SameSite=Strict, but *site* ignores ports (RFC 6265bis §5.2: the
/// registrable domain, here `localhost`), so any other server on `localhost:OTHERPORT` is
/// same-site and its form POST carries the shop's cookie. So a state-changing request must come
/// from the site's own origin (the `Origin` header, Fetch §3.1, which browsers send on every
/// POST), and carry JSON: an HTML form cannot send `application/json`, and `fetch` from another
/// origin can only after a CORS preflight (Fetch §3.2.3) that this server never grants.
/// Every answer also refuses to be framed (`frame-ancestors 'none'`, CSP Level 3 §6.4.2, and
/// `X-Frame-Options: DENY`, RFC 7034, for browsers without CSP), so no page can overlay one of
/// the demo's buttons (clickjacking).
struct SameOriginPolicy: Sendable {
    /// The site's origin, `http://HOST:PORT`.
    let origin: String

    /// The answer refusing `request`, or nil when it may go to the routes.
    func refusal(of request: Request) -> Response? {
        guard Self.changesState(request.head.method) else { return nil }
        // No Origin at all is a program (curl, a test), never a browser's cross-origin POST.
        if let sent = request.headers[.origin], sent != origin {
            return APIError(.forbidden, "cross-origin", "Only this site's own pages may send this request.").response
        }
        let type = request.headers[.contentType]?.split(separator: ";").first?
            .trimmingCharacters(in: .whitespaces).lowercased()
        guard type == "application/json" else {
            return APIError(.unsupportedMediaType, "bad-media-type", "Send the request body as application/json.")
                .response
        }
        return nil
    }

    /// GET, HEAD and OPTIONS only read (RFC 9110 §9.2.1: safe methods); the rest act.
    static func changesState(_ method: HTTPRequest.Method) -> Bool {
        ![.get, .head, .options].contains(method)
    }

    /// `response` with the framing refusal every answer carries.
    static func unframeable(_ response: Response) -> Response {
        var response = response
        response.headers[.contentSecurityPolicy] = "frame-ancestors 'none'"
        // HTTPTypes has no name for it (not in its IANA list of common fields).
        response.headers[.init("X-Frame-Options")!] = "DENY"
        return response
    }
}
