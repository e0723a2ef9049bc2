import CTAP
import Foundation
import RelyingParty
import Testing
import WebAuthn

/// Writes a registration and an authentication this package's types produced, for
/// `Fixtures/webauthn/verify_swift_responses.py` to check with py_webauthn. The file is written
/// only when `PASSKEYD_WEBAUTHN_EXPORT` names a directory; the JSON round trip is checked always.
@Suite struct ExportTests {
    struct Export: Codable, Equatable {
        var registrationOptions: PublicKeyCredentialCreationOptionsJSON
        var authenticationOptions: PublicKeyCredentialRequestOptionsJSON
        var rpId: String
        var origin: String
        var registrationChallenge: String
        var registrationResponse: RegistrationResponseJSON
        var authenticationChallenge: String
        var authenticationResponse: AuthenticationResponseJSON
    }

    @Test(arguments: [("es256", TestAuthenticator.es256()), ("ed25519", TestAuthenticator.ed25519())])
    func exportsResponsesForPyWebAuthn(name: String, authenticator: TestAuthenticator) throws {
        var registrationOptions = creationOptions(challenge: Array(0..<32), userVerification: .required)
        registrationOptions.excludeCredentials = [.init(id: [1, 2, 3], transports: ["usb"])]
        registrationOptions.hints = [.securityKey]
        registrationOptions.timeout = 60_000
        let export = Export(
            registrationOptions: registrationOptions,
            authenticationOptions: .init(
                challenge: Array(32..<64), timeout: 60_000, rpId: "example.com",
                allowCredentials: [.init(id: authenticator.credentialID, transports: ["internal"])],
                userVerification: .required),
            rpId: "example.com", origin: "https://example.com",
            registrationChallenge: Base64URL.encode(Array(0..<32)),
            registrationResponse: authenticator.registration(challenge: Array(0..<32)),
            authenticationChallenge: Base64URL.encode(Array(32..<64)),
            authenticationResponse: authenticator.assertion(challenge: Array(32..<64), signCount: 1))
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        let data = try encoder.encode(export)
        #expect(try JSONDecoder().decode(Export.self, from: data) == export)
        if let directory = ProcessInfo.processInfo.environment["PASSKEYD_WEBAUTHN_EXPORT"] {
            try data.write(to: URL(fileURLWithPath: directory).appendingPathComponent("swift_\(name).json"))
        }
    }
}
