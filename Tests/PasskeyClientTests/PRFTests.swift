import Authenticator
import CTAP
import Foundation
import RelyingParty
import Testing
import WebAuthn

@testable import PasskeyClient

/// The prf extension (WebAuthn L3 §10.1.4) end to end over hmac-secret.
@Suite struct PRFTests {
    let input1: [UInt8] = Array("first input".utf8)
    let input2: [UInt8] = Array("second input".utf8)

    func register(_ h: ClientHarness, _ name: String, prf: Bool = true) async throws -> RegisteredCredential {
        var options = await h.rp.registrationOptions(user: ClientHarness.user(name))
        if prf { options.extensions = AuthenticationExtensionsClientInputsJSON(prf: .init()) }
        let response = try await h.client.create(options)
        #expect(response.clientExtensionResults.prf?.enabled == (prf ? true : nil))
        let credential = try await h.rp.finishRegistration(response)
        await h.registered.put(credential)
        return credential
    }

    func evaluate(
        _ h: ClientHarness, _ prf: AuthenticationExtensionsPRFInputsJSON,
        allow: [RegisteredCredential] = []
    ) async throws -> AuthenticationExtensionsPRFValuesJSON? {
        var options = await h.rp.authenticationOptions(allowCredentials: allow.map(\.descriptor))
        options.extensions = AuthenticationExtensionsClientInputsJSON(prf: prf)
        let result = try await h.client.get(options)
        _ = try await h.verify(result)
        guard case .passkey(let response) = result else { return nil }
        return response.clientExtensionResults.prf?.results
    }

    @Test func resultsAreStablePerInputAndDifferPerInput() async throws {
        let h = try ClientHarness()
        _ = try await register(h, "alice")
        let first = try #require(try await evaluate(h, .init(eval: .init(first: input1))))
        #expect(first.first.count == 32 && first.second == nil)
        #expect(try await evaluate(h, .init(eval: .init(first: input1))) == first)
        let both = try #require(try await evaluate(h, .init(eval: .init(first: input1, second: input2))))
        #expect(both.first == first.first)
        #expect(both.second != nil && both.second != first.first)
    }

    @Test func evalByCredentialPicksTheCredentialsOwnValues() async throws {
        let h = try ClientHarness()
        let alice = try await register(h, "alice")
        let plain = try #require(try await evaluate(h, .init(eval: .init(first: input2)), allow: [alice]))
        let byCredential = AuthenticationExtensionsPRFInputsJSON(
            eval: .init(first: input1), evalByCredential: [Base64URL.encode(alice.id): .init(first: input2)])
        #expect(try await evaluate(h, byCredential, allow: [alice]) == plain)
    }

    @Test func evalByCredentialWithoutAllowCredentialsIsNotSupported() async throws {
        let h = try ClientHarness()
        let alice = try await register(h, "alice")
        var options = await h.rp.authenticationOptions()
        options.extensions = AuthenticationExtensionsClientInputsJSON(
            prf: .init(evalByCredential: [Base64URL.encode(alice.id): .init(first: input1)]))
        await expectWebAuthnError(.notSupported) { try await h.client.get(options) }
    }

    @Test func aCredentialMadeWithoutPRFGivesNoResults() async throws {
        let h = try ClientHarness()
        _ = try await register(h, "bob", prf: false)
        #expect(try await evaluate(h, .init(eval: .init(first: input1))) == nil)
    }

    @Test func prfValuesRoundTripAsBase64URLJSON() throws {
        let json = #"{"prf":{"eval":{"first":"AQID","second":"BAUG"}}}"#
        let inputs = try JSONDecoder().decode(AuthenticationExtensionsClientInputsJSON.self, from: Data(json.utf8))
        #expect(inputs.prf?.eval == .init(first: [1, 2, 3], second: [4, 5, 6]))
        let encoded = try JSONEncoder().encode(AuthenticationExtensionsPRFOutputsJSON(results: .init(first: [1, 2, 3])))
        #expect(String(decoding: encoded, as: UTF8.self) == #"{"results":{"first":"AQID"}}"#)
    }
}
