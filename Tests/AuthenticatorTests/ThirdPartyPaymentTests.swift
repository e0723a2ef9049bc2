import CBOR
import CTAP
import Testing

@testable import Authenticator

/// thirdPartyPayment (CTAP 2.2 §12.9): kept with the credential, reported on request.
@Suite struct ThirdPartyPaymentTests {
    func paymentOutput(_ h: Harness, _ credential: [UInt8]) async throws -> CBORValue? {
        var request = Fixture.getAssertion(allow: [credential])
        request.extensions = [ThirdPartyPayment.identifier: true]
        return try AuthenticatorData(bytes: try await h.getAssertion(request).authenticatorData).extensions?.mapValue?[
            "thirdPartyPayment"]
    }

    @Test(arguments: [true, false])
    func theMarkTravelsWithTheCredential(rk: Bool) async throws {
        let h = Harness(presence: Array(repeating: .approved, count: 6))
        let paying = try await h.makeCredential(
            Fixture.makeCredential(user: Fixture.user(1), rk: rk, extensions: [ThirdPartyPayment.identifier: true]))
        let plain = try await h.makeCredential(Fixture.makeCredential(user: Fixture.user(2), rk: rk))
        let payingID = try #require(
            try AuthenticatorData(bytes: paying.attestation.authenticatorData).attestedCredentialData
        ).credentialID
        let plainID = try #require(
            try AuthenticatorData(bytes: plain.attestation.authenticatorData).attestedCredentialData
        ).credentialID
        #expect(try await paymentOutput(h, payingID) == .boolean(true))
        #expect(try await paymentOutput(h, plainID) == .boolean(false))
        if rk {
            #expect(await h.store.allCredentials().map(\.thirdPartyPayment) == [nil, true])
        }
    }
}
