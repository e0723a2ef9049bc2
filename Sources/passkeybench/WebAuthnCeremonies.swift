import Foundation
import PasskeyClient
import WebAuthn

/// The whole platform path, as a browser drives it: a relying party's options as JSON
/// in, `WebAuthnClient` (RP ID checks, client data, CTAP2 over the socket) and the
/// response JSON out. Each registration gets an origin and RP of its own, like the
/// CTAP-level figure; every sign-in is a discoverable get at one RP holding one passkey.
struct WebAuthnCeremonies: Sendable {
    let transport: any CTAPTransport
    let suffixes: PublicSuffixList

    static let signInRP = "signin.webauthn.bench.example"

    func create(user: UInt64) async throws {
        let rpID = user == 0 ? Self.signInRP : "u\(user).webauthn.bench.example"
        let handle = Base64URL.encode(withUnsafeBytes(of: user.bigEndian) { Array($0) })
        let options = """
            {"rp": {"id": "\(rpID)", "name": "Bench"},
             "user": {"id": "\(handle)", "name": "user\(user)", "displayName": "User \(user)"},
             "challenge": "\(Self.challenge())", "pubKeyCredParams": [{"type": "public-key", "alg": -7}],
             "authenticatorSelection": {"residentKey": "required", "userVerification": "discouraged"},
             "attestation": "none"}
            """
        let decoded = try JSONDecoder().decode(PublicKeyCredentialCreationOptionsJSON.self, from: Data(options.utf8))
        let response = try await client(origin: "https://\(rpID)").create(decoded)
        _ = try JSONEncoder().encode(response)
    }

    func get() async throws {
        let options = """
            {"challenge": "\(Self.challenge())", "rpId": "\(Self.signInRP)", "allowCredentials": [],
             "userVerification": "discouraged"}
            """
        let decoded = try JSONDecoder().decode(PublicKeyCredentialRequestOptionsJSON.self, from: Data(options.utf8))
        guard case .passkey(let response) = try await client(origin: "https://\(Self.signInRP)").get(decoded) else {
            throw BenchError.unexpectedLookup(population: 1, found: 0)
        }
        _ = try JSONEncoder().encode(response)
    }

    private func client(origin: String) throws -> WebAuthnClient {
        try WebAuthnClient(
            transport: transport, origin: origin, userAgent: ScriptedUserAgent(), publicSuffixes: suffixes)
    }

    private static func challenge() -> String {
        var generator = SystemRandomNumberGenerator()
        return Base64URL.encode((0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
    }
}
