import Foundation
import Hummingbird

/// The small HTTP vocabulary the routes share: typed JSON in and out, pages, assets, cookies.
extension Request {
    /// The host the browser asked for, without the port (RFC 9110 §7.2); HTTP/1's Host header
    /// arrives as the request's authority.
    var hostName: String {
        let authority = head.authority ?? ""
        return String(authority.split(separator: ":", maxSplits: 1).first ?? "").lowercased()
    }

    /// The JSON body as `T`; a body that is not one gets 400 with what is wrong. Only
    /// `application/json` is read: another site's page cannot send that type here without a
    /// CORS preflight (Fetch §3.2.3), which this server never grants.
    mutating func json<T: Decodable>(_: T.Type) async throws -> T {
        guard
            headers[.contentType]?.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased()
                == "application/json"
        else {
            throw APIError(.unsupportedMediaType, "bad-media-type", "Send the request body as application/json.")
        }
        let buffer = try await collectBody(upTo: 1 << 20)
        do {
            return try JSONDecoder().decode(T.self, from: Data(buffer.readableBytesView))
        } catch {
            throw APIError(.badRequest, "bad-request", "The request body is not the JSON this endpoint takes.")
        }
    }

    func cookie(_ name: String) -> String? { cookies[name]?.value }
}

/// What an endpoint answers when it does not do what was asked: a status, a code the page
/// switches on, and the sentence it shows.
struct APIError: Error, Encodable {
    let status: HTTPResponse.Status
    let error: String
    let message: String

    init(_ status: HTTPResponse.Status, _ error: String, _ message: String) {
        self.status = status
        self.error = error
        self.message = message
    }

    private enum CodingKeys: String, CodingKey { case error, message }

    var response: Response { .json(self, status: status) }
}

extension Response {
    static func json<T: Encodable>(_ value: T, status: HTTPResponse.Status = .ok) -> Response {
        let data = (try? JSONEncoder().encode(value)) ?? Data("{}".utf8)
        return Response(
            status: status, headers: [.contentType: "application/json", .cacheControl: "no-store"],
            body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    static func html(_ page: String) -> Response {
        Response(
            status: .ok, headers: [.contentType: "text/html; charset=utf-8", .cacheControl: "no-store"],
            body: .init(byteBuffer: ByteBuffer(string: page)))
    }

    static func text(_ text: String, status: HTTPResponse.Status) -> Response {
        Response(
            status: status, headers: [.contentType: "text/plain; charset=utf-8"],
            body: .init(byteBuffer: ByteBuffer(string: text)))
    }

    /// One of the embedded assets (Web/Assets), or 404.
    static func asset(_ name: String) -> Response {
        guard let (bytes, type) = WebAssets.named(name) else { return .text("Not found.", status: .notFound) }
        return Response(
            status: .ok, headers: [.contentType: type, .cacheControl: "no-cache"],
            body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
    }

    static func redirect(_ path: String) -> Response {
        Response(status: .seeOther, headers: [.location: path])
    }
}

/// A session cookie: HttpOnly (no script reads it), SameSite=Strict (no other site's request
/// carries it), for this host only.
func sessionCookie(_ name: String, _ value: String, maxAge: Int) -> Cookie {
    Cookie(name: name, value: value, maxAge: maxAge, path: "/", httpOnly: true, sameSite: .strict)
}

/// Runs an endpoint's body; an `APIError` it throws becomes its JSON answer.
func answering(_ body: () async throws -> Response) async -> Response {
    do { return try await body() } catch let error as APIError {
        return error.response
    } catch {
        return APIError(.internalServerError, "internal", "The server failed: \(error)").response
    }
}

/// The embedded files of Web/Assets (SwiftPM `embedInCode`: bytes in the binary, so an
/// installed passkeydemo needs no resource folder).
enum WebAssets {
    static func named(_ name: String) -> ([UInt8], String)? {
        switch name {
        case "demo.js": return (PackageResources.demo_js, "text/javascript; charset=utf-8")
        case "demo.css": return (PackageResources.demo_css, "text/css; charset=utf-8")
        default: return nil
        }
    }
}

/// Text as HTML text content or attribute value (HTML §13.1.4's five characters).
func escapeHTML(_ text: String) -> String {
    var out = ""
    for c in text {
        switch c {
        case "&": out += "&amp;"
        case "<": out += "&lt;"
        case ">": out += "&gt;"
        case "\"": out += "&quot;"
        case "'": out += "&#39;"
        default: out.append(c)
        }
    }
    return out
}
