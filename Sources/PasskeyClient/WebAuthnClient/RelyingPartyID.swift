import Foundation
import PasskeydMacros

/// Checks that an RP ID may be used from an origin (WebAuthn L3 §5.1.3 step 8,
/// §5.1.4.1 step 7): the RP ID must equal the origin's effective domain or be a
/// registrable domain suffix of it (HTML §7.1.1.3), and never a public suffix.
@MemberwiseInit
public struct RelyingPartyIDPolicy: Sendable {
    /// The list that tells a registrable domain from a public suffix.
    public let publicSuffixes: PublicSuffixList

    /// A policy over `publicSuffixes`.

    /// The RP ID to use: `requested`, or the origin's effective domain when absent.
    /// Throws `.security` when the pair is not allowed.
    public func validate(rpID requested: String?, origin: Origin) throws(WebAuthnError) -> String {
        let host = origin.host
        // An origin whose host is an IP address (http://127.0.0.1 is a secure context) has no
        // domain: no RP ID is valid for it (§5.1.3 step 8: the effective domain must be a valid
        // domain). Chromium: SecurityError "This is an invalid domain."
        guard !Origin.isIPAddress(host) else {
            throw .security(
                "An IP address (\(host)) cannot be a relying party ID: WebAuthn needs a domain, such as localhost.")
        }
        // An RP ID is a domain string and compared in its ASCII form, as the origin's host is.
        guard let rpID = requested.flatMap(DomainToASCII.convert) else {
            if let requested { throw .security("The relying party ID \(requested) is not a valid domain.") }
            return host
        }
        if rpID == host { return rpID }
        guard !Origin.isIPAddress(rpID) else {
            throw .security("The relying party ID \(rpID) is not valid for the origin \(origin).")
        }
        guard host.hasSuffix("." + rpID) else {
            throw .security("The relying party ID \(rpID) is not a suffix of the origin's domain \(host).")
        }
        // `co.uk.` is `co.uk` in DNS: the check must not be dodged with a trailing dot.
        guard !publicSuffixes.isPublicSuffix(rpID) else {
            throw .security("The relying party ID \(rpID) is a public suffix.")
        }
        return rpID
    }
}

/// A web origin as WebAuthn needs it: scheme, host, port (RFC 6454).
public struct Origin: Sendable, Hashable, CustomStringConvertible {
    /// `https`, or `http` for localhost; lowercased.
    public let scheme: String
    /// The host in ASCII (punycode), lowercased, without brackets for IPv6.
    public let host: String
    /// The port, when the origin names one (`description` leaves out the scheme's default).
    public let port: Int?

    /// Parses an origin; only `https`, or `http` on localhost or a loopback address, is a secure
    /// context WebAuthn runs in (WebAuthn L3 §5.1.3 step 2; Secure Contexts §3.1 "potentially
    /// trustworthy": 127.0.0.0/8 and ::1 are, as `localhost` is). A loopback address is then
    /// refused as an RP ID, for being an IP address (`RelyingPartyIDPolicy`).
    public init(_ text: String) throws(WebAuthnError) {
        guard let components = Self.withASCIIHost(text).flatMap(URLComponents.init(string:)),
            let scheme = components.scheme?.lowercased(),
            let host = (components.encodedHost ?? components.host)?.lowercased(), !host.isEmpty
        else { throw .security("\(text) is not an origin.") }
        let bareHost = host.hasPrefix("[") ? String(host.dropFirst().dropLast()) : host
        let isLocalhost =
            bareHost == "localhost" || bareHost.hasSuffix(".localhost") || Self.isLoopbackAddress(bareHost)
        guard scheme == "https" || (scheme == "http" && isLocalhost) else {
            throw .security("\(text) is not a secure context: WebAuthn needs https (or http on localhost).")
        }
        self.scheme = scheme
        self.host = bareHost
        self.port = components.port
    }

    /// The serialization that goes into clientDataJSON's `origin`.
    public var description: String {
        let defaultPort = scheme == "https" ? 443 : 80
        let hostPart = host.contains(":") ? "[\(host)]" : host
        if let port, port != defaultPort { return "\(scheme)://\(hostPart):\(port)" }
        return "\(scheme)://\(hostPart)"
    }

    /// `text` with its host in ASCII, as browsers serialize an origin (URL Standard §3.5 "domain
    /// to ASCII", §4.5): `https://bücher.example` is `https://xn--bcher-kva.example`. Nil when
    /// the host cannot be converted.
    static func withASCIIHost(_ text: String) -> String? {
        guard let separator = text.range(of: "://") else { return text }
        let rest = text[separator.upperBound...]
        let authorityEnd = rest.firstIndex(where: { "/?#".contains($0) }) ?? rest.endIndex
        let authority = rest[..<authorityEnd]
        guard !authority.unicodeScalars.allSatisfy(\.isASCII) else { return text }
        // An IP literal is ASCII already; only a domain's labels are converted.
        var host = authority[...]
        var port = Substring("")
        if let colon = authority.lastIndex(of: ":") {
            host = authority[..<colon]
            port = authority[colon...]
        }
        guard !host.contains("@"), let ascii = DomainToASCII.convert(String(host)) else { return nil }
        return text[..<separator.upperBound] + ascii + port + rest[authorityEnd...]
    }

    /// 127.0.0.0/8 or ::1 (in any of its spellings a URL parser leaves: `::1`, `0:0:0:0:0:0:0:1`).
    static func isLoopbackAddress(_ host: String) -> Bool {
        if host.contains(":") {
            let groups = host.split(separator: ":", omittingEmptySubsequences: true)
            return groups.last.flatMap { UInt16($0, radix: 16) } == 1
                && groups.dropLast().allSatisfy { UInt16($0, radix: 16) == 0 }
        }
        return isIPAddress(host) && host.hasPrefix("127.")
    }

    static func isIPAddress(_ host: String) -> Bool {
        if host.contains(":") { return true }
        // `1.2.3.4.` is the address too, for the URL Standard's IPv4 parser (§3.5).
        let parts = (host.hasSuffix(".") ? host.dropLast() : host[...]).split(
            separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts.allSatisfy { UInt8($0) != nil }
    }
}
