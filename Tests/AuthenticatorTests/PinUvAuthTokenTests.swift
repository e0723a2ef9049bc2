import CBOR
import CTAP
import Crypto
import Testing

@testable import Authenticator

@Suite struct PinUvAuthTokenTests {
    /// A device with PIN "1234" set.
    static func protected(_ version: PinUvAuthProtocolVersion, verifier: ScriptedVerifier? = nil) async throws -> (
        Harness, PlatformPIN
    ) {
        let h = Harness(verifier: verifier)
        let platform = PlatformPIN(h, version)
        try #require(try await platform.setPIN("1234") == .success)
        return (h, platform)
    }

    @Test(arguments: bothProtocols)
    func aTokenAuthorisesOneMakeCredentialWithTheUVFlag(version: PinUvAuthProtocolVersion) async throws {
        let (h, platform) = try await Self.protected(version)
        let token = try await platform.grantedToken(pin: "1234", permissions: [.mc, .ga], rpID: Fixture.rp.id)
        let response = try await h.makeCredential(platform.makeCredential(token))
        let authData = try AuthenticatorData(bytes: response.attestation.authenticatorData)
        #expect(authData.flags.contains([.userPresent, .userVerified]))
        // A PIN token carries no presence: the user touched the device for this request.
        #expect(await h.presence.requests.map(\.purpose) == [.makeCredential])
        // Presence consumed the token's permissions (CTAP 2.1 §6.1.2): no second request with it.
        #expect(
            try await h.status(of: .makeCredential, platform.makeCredential(token, user: Fixture.user(2)).cbor)
                == .pinAuthInvalid)
    }

    @Test(arguments: bothProtocols)
    func aTokenAuthorisesGetAssertionWithUVAndUserNames(version: PinUvAuthProtocolVersion) async throws {
        let (h, platform) = try await Self.protected(version)
        _ = try await h.makeCredential(
            platform.makeCredential(try await platform.grantedToken(pin: "1234", permissions: .mc)))
        let token = try await platform.grantedToken(pin: "1234", permissions: .ga)
        let assertion = try await h.getAssertion(platform.getAssertion(token))
        let authData = try AuthenticatorData(bytes: assertion.authenticatorData)
        #expect(authData.flags.contains([.userPresent, .userVerified]))
        #expect(assertion.user?.name == "user1@example.com", "names only after user verification")
        // Without the token the same credential asserts without UV.
        let plain = try await h.getAssertion(Fixture.getAssertion())
        #expect(try !AuthenticatorData(bytes: plain.authenticatorData).flags.contains(.userVerified))
    }

    @Test(arguments: bothProtocols)
    func legacyGetPinTokenGrantsMakeCredentialAndGetAssertionOnly(version: PinUvAuthProtocolVersion) async throws {
        let (h, platform) = try await Self.protected(version)
        let token = try await platform.grantedToken(pin: "1234")
        #expect(try await h.status(of: .getAssertion, platform.getAssertion(token, up: false).cbor) == .noCredentials)
        let request = platform.credentialManagement(.getCredsMetadata, token: token)
        #expect(try await h.status(of: .credentialManagement, request.cbor) == .pinAuthInvalid)
        #expect(try await h.status(of: .makeCredential, platform.makeCredential(token).cbor) == .success)
    }

    @Test(arguments: bothProtocols)
    func permissionsAreEnforced(version: PinUvAuthProtocolVersion) async throws {
        let (h, platform) = try await Self.protected(version)
        let gaOnly = try await platform.grantedToken(pin: "1234", permissions: .ga)
        #expect(try await h.status(of: .makeCredential, platform.makeCredential(gaOnly).cbor) == .pinAuthInvalid)
        let mcOnly = try await platform.grantedToken(pin: "1234", permissions: .mc)
        #expect(try await h.status(of: .getAssertion, platform.getAssertion(mcOnly).cbor) == .pinAuthInvalid)
        let cmOnly = try await platform.grantedToken(pin: "1234", permissions: .cm)
        #expect(try await h.status(of: .makeCredential, platform.makeCredential(cmOnly).cbor) == .pinAuthInvalid)
        #expect(await h.store.count() == 0)
    }

    @Test(arguments: bothProtocols)
    func aTokenIsBoundToItsRPOrToTheFirstItServes(version: PinUvAuthProtocolVersion) async throws {
        let (h, platform) = try await Self.protected(version)
        let other = PublicKeyCredentialRpEntity(id: "other.example", name: "Other")
        let bound = try await platform.grantedToken(pin: "1234", permissions: [.mc, .ga], rpID: Fixture.rp.id)
        #expect(
            try await h.status(of: .makeCredential, platform.makeCredential(bound, rp: other).cbor) == .pinAuthInvalid)
        // No RP ID: the first use binds it (silent assertions leave the token's permissions intact).
        let unbound = try await platform.grantedToken(pin: "1234", permissions: [.ga])
        #expect(try await h.status(of: .getAssertion, platform.getAssertion(unbound, up: false).cbor) == .noCredentials)
        #expect(
            try await h.status(of: .getAssertion, platform.getAssertion(unbound, rpID: other.id, up: false).cbor)
                == .pinAuthInvalid)
        #expect(try await h.status(of: .getAssertion, platform.getAssertion(unbound, up: false).cbor) == .noCredentials)
    }

    @Test(arguments: bothProtocols)
    func tokensExpireAsTheUsageTimerSays(version: PinUvAuthProtocolVersion) async throws {
        let (h, platform) = try await Self.protected(version)
        // Not used within 30 s: gone.
        let idle = try await platform.grantedToken(pin: "1234", permissions: .ga)
        h.clock.advance(.seconds(31))
        #expect(try await h.status(of: .getAssertion, platform.getAssertion(idle, up: false).cbor) == .pinAuthInvalid)
        // Used in time, it lives until the 10-minute maximum.
        let used = try await platform.grantedToken(pin: "1234", permissions: .ga)
        h.clock.advance(.seconds(10))
        #expect(try await h.status(of: .getAssertion, platform.getAssertion(used, up: false).cbor) == .noCredentials)
        h.clock.advance(.seconds(580))
        #expect(try await h.status(of: .getAssertion, platform.getAssertion(used, up: false).cbor) == .noCredentials)
        h.clock.advance(.seconds(11))
        #expect(try await h.status(of: .getAssertion, platform.getAssertion(used, up: false).cbor) == .pinAuthInvalid)
    }

    @Test(arguments: bothProtocols)
    func aNewTokenPowerCycleAndResetEachEndTheOldOne(version: PinUvAuthProtocolVersion) async throws {
        let (h, platform) = try await Self.protected(version)
        let first = try await platform.grantedToken(pin: "1234", permissions: .ga)
        let second = try await platform.grantedToken(pin: "1234", permissions: .ga)
        #expect(try await h.status(of: .getAssertion, platform.getAssertion(first, up: false).cbor) == .pinAuthInvalid)
        #expect(try await h.status(of: .getAssertion, platform.getAssertion(second, up: false).cbor) == .noCredentials)
        await h.authenticator.powerCycle()
        #expect(try await h.status(of: .getAssertion, platform.getAssertion(second, up: false).cbor) == .pinAuthInvalid)
        let third = try await platform.grantedToken(pin: "1234", permissions: .ga)
        #expect(try await h.status(of: .reset) == .success)
        #expect(try await h.status(of: .getAssertion, platform.getAssertion(third, up: false).cbor) == .pinAuthInvalid)
    }

    @Test(arguments: bothProtocols)
    func aParamThatDoesNotVerifyIsRefused(version: PinUvAuthProtocolVersion) async throws {
        let (h, platform) = try await Self.protected(version)
        let token = try await platform.grantedToken(pin: "1234", permissions: .mc)
        var request = platform.makeCredential(token)
        request.clientDataHash = Array(SHA256.hash(data: Array("other client data".utf8)))
        #expect(try await h.status(of: .makeCredential, request.cbor) == .pinAuthInvalid)
        // The token answers only under the protocol it was handed out under.
        var crossed = platform.makeCredential(token)
        let otherVersion: PinUvAuthProtocolVersion = version == .one ? .two : .one
        crossed.pinUvAuthParam = otherVersion.implementation.authenticate(
            key: token.secret, message: Fixture.clientDataHash)
        crossed.pinUvAuthProtocol = otherVersion.rawValue
        #expect(try await h.status(of: .makeCredential, crossed.cbor) == .pinAuthInvalid)
        #expect(try await h.status(of: .makeCredential, platform.makeCredential(token).cbor) == .success)
    }

    @Test func aPINProtectedDeviceWantsATokenForDiscoverableCredentials() async throws {
        let (h, _) = try await Self.protected(.two)
        #expect(try await h.status(of: .makeCredential, Fixture.makeCredential(rk: true).cbor) == .puatRequired)
        // makeCredUvNotRqd: non-discoverable credentials need none.
        #expect(try await h.status(of: .makeCredential, Fixture.makeCredential(rk: false).cbor) == .success)
        // The probe with a zero-length pinUvAuthParam now says a PIN exists.
        var probe = Fixture.makeCredential()
        probe.pinUvAuthParam = []
        probe.pinUvAuthProtocol = 2
        #expect(try await h.status(of: .makeCredential, probe.cbor) == .pinInvalid)
    }

    @Test func theUVOptionGivesWayToPinUvAuthParam() async throws {
        // No built-in UV: `uv` alone is an invalid option, but with a token it is ignored.
        let (h, platform) = try await Self.protected(.two)
        #expect(try await h.status(of: .makeCredential, Fixture.makeCredential(uv: true).cbor) == .invalidOption)
        let token = try await platform.grantedToken(pin: "1234", permissions: .mc)
        #expect(try await h.status(of: .makeCredential, platform.makeCredential(token, uv: true).cbor) == .success)
    }

    @Test(arguments: bothProtocols)
    func builtInUVTokenCarriesPresence(version: PinUvAuthProtocolVersion) async throws {
        let h = Harness(verifier: .always(.verified))
        let platform = PlatformPIN(h, version)
        let (status, token) = try await platform.tokenUsingUV(permissions: [.mc], rpID: Fixture.rp.id)
        #expect(status == .success)
        let response = try await h.makeCredential(platform.makeCredential(try #require(token)))
        let authData = try AuthenticatorData(bytes: response.attestation.authenticatorData)
        #expect(authData.flags.contains([.userPresent, .userVerified]))
        #expect(await h.presence.requests.isEmpty, "the fingerprint was the gesture")
        #expect(await h.verifier?.requests.map(\.purpose) == [.pinUvAuthToken])
    }

    @Test(arguments: bothProtocols)
    func failedUVCountsDownToBlockedAndThePINStillWorks(version: PinUvAuthProtocolVersion) async throws {
        let (h, platform) = try await Self.protected(version, verifier: .always(.failed))
        #expect(try await platform.uvRetries() == 8)
        for remaining in stride(from: 7, through: 1, by: -1) {
            #expect(try await platform.tokenUsingUV(permissions: .mc).0 == .uvInvalid)
            #expect(try await platform.uvRetries() == remaining)
        }
        #expect(try await platform.tokenUsingUV(permissions: .mc).0 == .uvBlocked)
        #expect(try await platform.tokenUsingUV(permissions: .mc).0 == .uvBlocked)
        #expect(try await platform.uvRetries() == 0)
        // The phone's fallback: the PIN.
        let token = try await platform.grantedToken(pin: "1234", permissions: .mc)
        #expect(try await h.status(of: .makeCredential, platform.makeCredential(token).cbor) == .success)
    }

    @Test func aSuccessfulUVRestoresTheRetries() async throws {
        let h = Harness(verifier: ScriptedVerifier([.failed, .failed, .verified]))
        let platform = PlatformPIN(h, .two)
        #expect(try await platform.tokenUsingUV(permissions: .ga).0 == .uvInvalid)
        #expect(try await platform.tokenUsingUV(permissions: .ga).0 == .uvInvalid)
        #expect(try await platform.uvRetries() == 6)
        #expect(try await platform.tokenUsingUV(permissions: .ga).0 == .success)
        #expect(try await platform.uvRetries() == 8)
    }

    @Test func noBuiltInUVMeansNoUVToken() async throws {
        let platform = PlatformPIN(Harness(), .two)
        #expect(try await platform.tokenUsingUV(permissions: .mc).0 == .notAllowed)
        let unconfigured = PlatformPIN(Harness(verifier: ScriptedVerifier([.verified], configured: false)), .one)
        #expect(try await unconfigured.tokenUsingUV(permissions: .mc).0 == .notAllowed)
        let h = Harness(verifier: .always(.verified))
        #expect(try await PlatformPIN(h, .two).tokenUsingUV(permissions: .be).0 == .unauthorizedPermission)
        #expect(
            try await PlatformPIN(h, .two).tokenUsingUV(permissions: PinUvAuthTokenPermissions(rawValue: 0)).0
                == .invalidParameter)
    }
}
