import CBOR
import CTAP
import Testing

@testable import Authenticator
@testable import PasskeyClient

/// authenticatorConfig (CTAP 2.1 §6.11), alwaysUv, setMinPINLength and the minPinLength extension (§12.4).
struct AuthenticatorConfigTests {
    /// Sends a config subcommand, authenticated with `token` when given.
    static func config(
        _ h: Harness, _ subCommand: AuthenticatorConfigSubcommand, _ params: SetMinPINLengthParameters? = nil,
        token: PinUvAuthToken?
    ) async throws -> CTAPStatus {
        var request = AuthenticatorConfigRequest(subCommand: subCommand, subCommandParams: params)
        request.pinUvAuthProtocol = token?.protocolVersion
        request.pinUvAuthParam = token?.authenticate(request.authenticatedMessage)
        return try await h.status(of: .config, request.cbor)
    }

    @Test func getInfoSaysWhatConfigOffers() async throws {
        let info = try await PlatformPIN(Harness(), .two).info()
        #expect(info.options["authnrCfg"] == true)
        #expect(info.options["alwaysUv"] == false)
        #expect(info.options["setMinPINLength"] == true)
        #expect(info.options["makeCredUvNotRqd"] == true)
        #expect(info.maxRPIDsForSetMinPINLength == 8)
        #expect(info.maxCredBlobLength == 32)
        #expect(info.extensions.contains("credBlob") && info.extensions.contains("minPinLength"))
    }

    @Test func aProtectedDeviceTakesConfigOnlyWithAnAcfgToken() async throws {
        let h = Harness()
        let platform = PlatformPIN(h, .two)
        let withoutAcfg = try #require(try await platform.setPINAndToken(permissions: .cm))
        #expect(try await Self.config(h, .toggleAlwaysUv, token: nil) == .puatRequired)
        #expect(try await Self.config(h, .toggleAlwaysUv, token: withoutAcfg) == .pinAuthInvalid)
        var unnamed = AuthenticatorConfigRequest(subCommand: .toggleAlwaysUv)
        unnamed.pinUvAuthParam = [UInt8](repeating: 0, count: 32)
        #expect(try await h.status(of: .config, unnamed.cbor) == .missingParameter)
        // A MAC over another subcommand does not verify.
        let acfg = try #require(try await platform.token(pin: PlatformPIN.testPIN, permissions: .acfg).1)
        var forged = AuthenticatorConfigRequest(subCommand: .toggleAlwaysUv, pinUvAuthProtocol: 2)
        forged.pinUvAuthParam = acfg.authenticate(
            AuthenticatorConfigRequest(subCommand: .setMinPINLength).authenticatedMessage)
        #expect(try await h.status(of: .config, forged.cbor) == .pinAuthInvalid)
        #expect(try await platform.info().options["alwaysUv"] == false, "nothing changed")
        #expect(try await Self.config(h, .toggleAlwaysUv, token: acfg) == .success)
        #expect(try await platform.info().options["alwaysUv"] == true)
    }

    @Test func unknownAndUnofferedSubcommandsChangeNothing() async throws {
        let h = Harness()
        let before = try await h.authenticator.deviceState()
        #expect(try await h.status(of: .config, [0x01: 0x04]) == .invalidSubcommand)
        #expect(try await h.status(of: .config, [0x01: 0x7F]) == .invalidSubcommand)
        #expect(try await Self.config(h, .enableEnterpriseAttestation, token: nil) == .invalidSubcommand)
        #expect(try await Self.config(h, .vendorPrototype, token: nil) == .invalidSubcommand)
        #expect(try await h.status(of: .config, [:]) == .missingParameter)
        #expect(try await h.authenticator.deviceState() == before)
    }

    @Test func alwaysUvMakesEveryCredentialOperationVerifyTheUser() async throws {
        let h = Harness(presence: Array(repeating: .approved, count: 8))
        // Unprotected: toggling needs no token, and then nothing works without a PIN.
        #expect(try await Self.config(h, .toggleAlwaysUv, token: nil) == .success)
        #expect(try await PlatformPIN(h, .two).info().options["makeCredUvNotRqd"] == false)
        #expect(try await h.status(of: .makeCredential, Fixture.makeCredential(rk: false).cbor) == .pinNotSet)
        let platform = PlatformPIN(h, .two)
        let token = try #require(try await platform.setPINAndToken(permissions: [.mc, .ga]))
        #expect(try await h.status(of: .makeCredential, Fixture.makeCredential(rk: false).cbor) == .puatRequired)
        #expect(try await h.status(of: .getAssertion, Fixture.getAssertion().cbor) == .puatRequired)
        var request = Fixture.makeCredential(rk: false)
        request.pinUvAuthParam = token.authenticate(Fixture.clientDataHash)
        request.pinUvAuthProtocol = 2
        let made = try await h.makeCredential(request)
        #expect(try AuthenticatorData(bytes: made.attestation.authenticatorData).flags.contains(.userVerified))
        // Built-in UV answers for the PIN when there is one.
        let withUV = Harness(presence: [.approved, .approved], verifier: .always(.verified))
        try await withUV.authenticator.updateDeviceState { $0.alwaysUv = true }
        let protected = try await withUV.makeCredential(Fixture.makeCredential(rk: false))
        #expect(try AuthenticatorData(bytes: protected.attestation.authenticatorData).flags.contains(.userVerified))
    }

    @Test func setMinPINLengthOnlyGrowsAndForcesAChangeOfAShorterPIN() async throws {
        let h = Harness()
        let platform = PlatformPIN(h, .one)
        let token = try #require(try await platform.setPINAndToken(permissions: .acfg))  // 5 code points
        #expect(
            try await Self.config(h, .setMinPINLength, SetMinPINLengthParameters(newMinPINLength: 5), token: token)
                == .success)
        #expect(try await platform.info().minPINLength == 5)
        #expect(try await platform.info().forcePINChange == false, "the PIN is long enough")
        let again = try #require(try await platform.token(pin: PlatformPIN.testPIN, permissions: .acfg).1)
        #expect(
            try await Self.config(h, .setMinPINLength, SetMinPINLengthParameters(newMinPINLength: 4), token: again)
                == .pinPolicyViolation)
        #expect(
            try await Self.config(h, .setMinPINLength, SetMinPINLengthParameters(newMinPINLength: 64), token: again)
                == .pinPolicyViolation)
        let nineRPs = SetMinPINLengthParameters(minPinLengthRPIDs: (1...9).map { "rp\($0).example" })
        #expect(try await Self.config(h, .setMinPINLength, nineRPs, token: again) == .invalidLength)
        #expect(try await platform.info().minPINLength == 5)
        #expect(
            try await Self.config(h, .setMinPINLength, SetMinPINLengthParameters(newMinPINLength: 6), token: again)
                == .success)
        #expect(try await platform.info().forcePINChange == true)
        #expect(try await platform.changePIN(from: PlatformPIN.testPIN, to: "12345") == .pinPolicyViolation)
        #expect(try await platform.changePIN(from: PlatformPIN.testPIN, to: "123456") == .success)
        #expect(try await platform.info().forcePINChange == false)
        // forceChangePin alone; and with no PIN at all it is PIN_NOT_SET.
        let third = try #require(try await platform.token(pin: "123456", permissions: .acfg).1)
        #expect(
            try await Self.config(h, .setMinPINLength, SetMinPINLengthParameters(forceChangePin: true), token: third)
                == .success)
        #expect(try await platform.info().forcePINChange == true)
        #expect(
            try await Self.config(
                Harness(), .setMinPINLength, SetMinPINLengthParameters(forceChangePin: true), token: nil) == .pinNotSet)
    }

    @Test func minPinLengthIsReportedOnlyToTheNamedRPs() async throws {
        let h = Harness(presence: [.approved, .approved])
        #expect(
            try await Self.config(
                h, .setMinPINLength, SetMinPINLengthParameters(newMinPINLength: 6, minPinLengthRPIDs: ["example.com"]),
                token: nil) == .success)
        let ask: ExtensionMap = [MinPinLength.identifier: true]
        let named = try await h.makeCredential(Fixture.makeCredential(rk: false, extensions: ask))
        #expect(
            try AuthenticatorData(bytes: named.attestation.authenticatorData).extensions
                == CBORValue.map([.textString("minPinLength"): .unsigned(6)]))
        let other = try await h.makeCredential(
            Fixture.makeCredential(rp: PublicKeyCredentialRpEntity(id: "other.example"), rk: false, extensions: ask))
        #expect(try AuthenticatorData(bytes: other.attestation.authenticatorData).extensions == nil)
    }

    @Test func credBlobIsKeptWithDiscoverableCredentialsAndReturnedOnRequest() async throws {
        let h = Harness(presence: Array(repeating: .approved, count: 6))
        let blob: [UInt8] = Array(0..<32)
        let made = try await h.makeCredential(
            Fixture.makeCredential(extensions: [CredBlob.identifier: .byteString(blob)]))
        let authData = try AuthenticatorData(bytes: made.attestation.authenticatorData)
        #expect(authData.extensions == CBORValue.map([.textString("credBlob"): .boolean(true)]))
        let id = try #require(authData.attestedCredentialData?.credentialID)
        var request = Fixture.getAssertion(allow: [id])
        request.extensions = [CredBlob.identifier: true]
        let asserted = try await h.getAssertion(request)
        #expect(
            try AuthenticatorData(bytes: asserted.authenticatorData).extensions
                == CBORValue.map([.textString("credBlob"): .byteString(blob)]))
        // Too long, or for a non-discoverable credential: not stored, output false.
        let tooLong = try await h.makeCredential(
            Fixture.makeCredential(user: Fixture.user(2), extensions: [CredBlob.identifier: .byteString(blob + [0])]))
        #expect(
            try AuthenticatorData(bytes: tooLong.attestation.authenticatorData).extensions
                == CBORValue.map([.textString("credBlob"): .boolean(false)]))
        let nonResident = try await h.makeCredential(
            Fixture.makeCredential(rk: false, extensions: [CredBlob.identifier: .byteString(blob)]))
        #expect(
            try AuthenticatorData(bytes: nonResident.attestation.authenticatorData).extensions
                == CBORValue.map([.textString("credBlob"): .boolean(false)]))
        // A credential without one answers an empty blob; a wrong type is refused.
        let otherID = try #require(
            try AuthenticatorData(bytes: tooLong.attestation.authenticatorData).attestedCredentialData?.credentialID)
        var plain = Fixture.getAssertion(allow: [otherID])
        plain.extensions = [CredBlob.identifier: true]
        #expect(
            try AuthenticatorData(bytes: try await h.getAssertion(plain).authenticatorData).extensions
                == CBORValue.map([.textString("credBlob"): .byteString([])]))
        #expect(
            try await h.status(
                of: .makeCredential,
                Fixture.makeCredential(user: Fixture.user(3), extensions: [CredBlob.identifier: true]).cbor)
                == .cborUnexpectedType)
    }
}
