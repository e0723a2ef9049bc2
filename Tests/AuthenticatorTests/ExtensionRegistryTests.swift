import CBOR
import CTAP
import Testing

@testable import Authenticator

/// The extensions a device offers are one value (CTAP 2.1 §12): getInfo lists it, the commands
/// process it and ignore every other identifier.
@Suite struct ExtensionRegistryTests {
    func info(_ h: Harness) async throws -> GetInfoResponse {
        try GetInfoResponse(cbor: try #require(try await h.send(.getInfo).1))
    }

    @Test func getInfoListsTheRegistry() async throws {
        #expect(
            try await info(Harness()).extensions == [
                "credProtect", "hmac-secret", "hmac-secret-mc", "largeBlobKey", "credBlob", "minPinLength",
                "previewSign", "thirdPartyPayment"
            ])
        let h = Harness(extensions: ExtensionRegistry.standard.selecting(["credProtect"]))
        #expect(try await info(h).extensions == ["credProtect"])
    }

    @Test func anExtensionTheDeviceDoesNotOfferIsIgnored() async throws {
        let h = Harness(extensions: ExtensionRegistry.standard.selecting(["credProtect"]))
        let response = try await h.makeCredential(
            Fixture.makeCredential(extensions: ["hmac-secret": true, "credProtect": 2]))
        let authData = try AuthenticatorData(bytes: response.attestation.authenticatorData)
        #expect(authData.extensions == ["credProtect": 2])
        #expect(await h.store.allCredentials().first?.hmacSecret == nil)
    }

    @Test func unknownIdentifiersAreIgnoredInBothCommands() async throws {
        let h = Harness()
        let unknown: ExtensionMap = ["future-extension": [1: 2], "uvm": .byteString([1])]
        let response = try await h.makeCredential(Fixture.makeCredential(extensions: unknown))
        let created = try AuthenticatorData(bytes: response.attestation.authenticatorData)
        #expect(created.extensions == nil && !created.flags.contains(.extensionData))
        var request = Fixture.getAssertion()
        request.extensions = unknown
        let assertion = try await h.getAssertion(request)
        #expect(try AuthenticatorData(bytes: assertion.authenticatorData).extensions == nil)
    }

    @Test func aMalformedInputFailsTheRequestBeforeAnyEffect() async throws {
        let h = Harness(presence: [.cancelled])
        let bad = Fixture.makeCredential(extensions: ["credProtect": 9])
        #expect(try await h.status(of: .makeCredential, bad.cbor) == .invalidParameter)
        #expect(
            try await h.status(of: .makeCredential, Fixture.makeCredential(extensions: ["hmac-secret": "yes"]).cbor)
                == .cborUnexpectedType)
        #expect(await h.store.allCredentials().isEmpty)
    }

    /// The device signs authData ‖ clientDataHash: a hash that is not 32 bytes is refused.
    @Test(arguments: [0, 20, 31, 33, 48])
    func clientDataHashOfAnotherLengthIsRefused(length: Int) async throws {
        let h = Harness()
        let credential = try #require(
            try AuthenticatorData(
                bytes: try await h.makeCredential(Fixture.makeCredential()).attestation.authenticatorData
            )
            .attestedCredentialData
        ).credentialID
        var create = Fixture.makeCredential(user: Fixture.user(2))
        create.clientDataHash = [UInt8](repeating: 5, count: length)
        #expect(try await h.status(of: .makeCredential, create.cbor) == .invalidLength)
        var get = Fixture.getAssertion(allow: [credential])
        get.clientDataHash = [UInt8](repeating: 5, count: length)
        #expect(try await h.status(of: .getAssertion, get.cbor) == .invalidLength)
        #expect(await h.store.allCredentials().count == 1)
    }
}
