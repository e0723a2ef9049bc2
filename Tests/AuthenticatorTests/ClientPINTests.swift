import CBOR
import CTAP
import Crypto
import Foundation
import Testing

@testable import Authenticator

@Suite struct ClientPINTests {
    @Test(arguments: bothProtocols)
    func setPINTurnsClientPinOnInGetInfo(version: PinUvAuthProtocolVersion) async throws {
        let h = Harness()
        let platform = PlatformPIN(h, version)
        let before = try await platform.info()
        #expect(before.options["clientPin"] == false)
        #expect(before.options["pinUvAuthToken"] == true)
        #expect(before.options["credMgmt"] == true)
        #expect(before.pinUvAuthProtocols == [2, 1])
        #expect(before.minPINLength == 4)
        #expect(before.forcePINChange == false)
        let noPIN = ClientPINRequest(subCommand: .getPINRetries, pinUvAuthProtocol: version.rawValue).cbor
        #expect(try await h.status(of: .clientPIN, noPIN) == .pinNotSet, "no PIN, no retries to count")
        #expect(try await platform.setPIN("1234") == .success)
        #expect(try await platform.info().options["clientPin"] == true)
        #expect(try await platform.pinRetries().retries == 8)
        // setPIN sets only a first PIN.
        #expect(try await platform.setPIN("5678") == .pinAuthInvalid)
        #expect(try await platform.token(pin: "1234").0 == .success)
    }

    @Test(arguments: bothProtocols)
    func changePINReplacesThePINAndVoidsTokens(version: PinUvAuthProtocolVersion) async throws {
        let h = Harness()
        let platform = PlatformPIN(h, version)
        #expect(try await platform.setPIN("1234") == .success)
        let oldToken = try await platform.grantedToken(pin: "1234")
        #expect(try await platform.changePIN(from: "1234", to: "98765") == .success)
        #expect(try await platform.token(pin: "1234").0 == .pinInvalid)
        #expect(try await platform.token(pin: "98765").0 == .success)
        // The token handed out under the old PIN no longer authorises anything.
        #expect(try await h.status(of: .makeCredential, platform.makeCredential(oldToken).cbor) == .pinAuthInvalid)
        // A wrong current PIN changes nothing and costs a retry.
        #expect(try await platform.changePIN(from: "0000", to: "4444") == .pinInvalid)
        #expect(try await platform.pinRetries().retries == 7)
    }

    @Test(arguments: bothProtocols)
    func newPINsAreCheckedAgainstThePolicy(version: PinUvAuthProtocolVersion) async throws {
        let h = Harness()
        let platform = PlatformPIN(h, version)
        // Three emoji: 12 bytes but 3 code points, short of the 4 the spec requires.
        #expect(try await platform.setPIN("🔑🔑🔑") == .pinPolicyViolation)
        #expect(try await platform.setPIN("123") == .pinPolicyViolation)
        // 64 bytes of PIN leaves no padding: more than 63 bytes. (PasskeyClient refuses to send
        // it, so the authenticator's own check is reached with the padded bytes directly.)
        #expect(try await platform.setPIN(padded: Array(String(repeating: "7", count: 64).utf8)) == .pinPolicyViolation)
        // paddedNewPin must be exactly 64 bytes.
        #expect(try await platform.setPIN(padded: PlatformPIN.padded("1234", to: 48)) == .invalidParameter)
        #expect(try await platform.setPIN(padded: PlatformPIN.padded("1234", to: 80)) == .invalidParameter)
        // A pinUvAuthParam that does not verify.
        #expect(try await platform.setPIN(padded: PlatformPIN.padded("1234"), corruptMAC: true) == .pinAuthInvalid)
        #expect(try await platform.info().options["clientPin"] == false)
        // Four emoji are four code points: allowed.
        #expect(try await platform.setPIN("🔑🔑🔑🔑") == .success)
        #expect(try await platform.token(pin: "🔑🔑🔑🔑").0 == .success)
        // changePIN applies the same policy.
        #expect(try await platform.changePIN(from: "🔑🔑🔑🔑", to: "12") == .pinPolicyViolation)
    }

    @Test func theMinimumPINLengthSettingIsHonoured() async throws {
        let store = InMemoryCredentialStore()
        var state = DeviceState(wrappingKey: Array(repeating: 9, count: 32))
        state.minPINLength = 6
        await store.saveDeviceState(state)
        let platform = PlatformPIN(Harness(store: store), .two)
        #expect(try await platform.info().minPINLength == 6)
        #expect(try await platform.setPIN("12345") == .pinPolicyViolation)
        #expect(try await platform.setPIN("123456") == .success)
    }

    @Test(arguments: bothProtocols)
    func aWrongPINCostsARetryThatSurvivesARestart(version: PinUvAuthProtocolVersion) async throws {
        let h = Harness()
        let platform = PlatformPIN(h, version)
        #expect(try await platform.setPIN("1234") == .success)
        #expect(try await platform.token(pin: "9999").0 == .pinInvalid)
        #expect(try await platform.pinRetries().retries == 7)
        // A new authenticator over the same store: the daemon restarted.
        let reopened = PlatformPIN(Harness(store: h.store), version)
        #expect(try await reopened.pinRetries().retries == 7)
        #expect(try await reopened.token(pin: "1234").0 == .success)
        #expect(try await reopened.pinRetries().retries == 8, "a correct PIN restores the retries")
    }

    @Test(arguments: bothProtocols)
    func threeWrongInARowBlockUntilPowerCycle(version: PinUvAuthProtocolVersion) async throws {
        let h = Harness()
        let platform = PlatformPIN(h, version)
        #expect(try await platform.setPIN("1234") == .success)
        #expect(try await platform.pinRetries().powerCycleState == false)
        #expect(try await platform.token(pin: "0000").0 == .pinInvalid)
        #expect(try await platform.token(pin: "0000").0 == .pinInvalid)
        #expect(try await platform.token(pin: "0000").0 == .pinAuthBlocked)
        // Even the right PIN waits for the power cycle, and costs nothing meanwhile.
        #expect(try await platform.token(pin: "1234").0 == .pinAuthBlocked)
        #expect(try await platform.changePIN(from: "1234", to: "5678") == .pinAuthBlocked)
        let blocked = try await platform.pinRetries()
        #expect(blocked.retries == 5)
        #expect(blocked.powerCycleState == true)
        await h.authenticator.powerCycle()
        #expect(try await platform.pinRetries().powerCycleState == false)
        #expect(try await platform.token(pin: "1234").0 == .success)
    }

    @Test(arguments: bothProtocols)
    func eightWrongBlockThePINUntilReset(version: PinUvAuthProtocolVersion) async throws {
        let h = Harness()
        let platform = PlatformPIN(h, version)
        #expect(try await platform.setPIN("1234") == .success)
        var statuses: [CTAPStatus] = []
        for attempt in 1...8 {
            statuses.append(try await platform.token(pin: "0000").0)
            if attempt % 3 == 0 { await h.authenticator.powerCycle() }
        }
        #expect(
            statuses == [
                .pinInvalid, .pinInvalid, .pinAuthBlocked, .pinInvalid, .pinInvalid, .pinAuthBlocked, .pinInvalid,
                .pinBlocked
            ])
        #expect(try await platform.pinRetries().retries == 0)
        // Blocked for good: power cycles, restarts and the right PIN do not help.
        await h.authenticator.powerCycle()
        #expect(try await platform.token(pin: "1234").0 == .pinBlocked)
        #expect(try await platform.changePIN(from: "1234", to: "5678") == .pinBlocked)
        let reopened = Harness(store: h.store)
        #expect(try await PlatformPIN(reopened, version).token(pin: "1234").0 == .pinBlocked)
        // Reset (within 10 s of power-up, with presence) clears the PIN.
        #expect(try await reopened.status(of: .reset) == .success)
        let fresh = PlatformPIN(reopened, version)
        #expect(try await fresh.info().options["clientPin"] == false)
        let retries = ClientPINRequest(subCommand: .getPINRetries, pinUvAuthProtocol: version.rawValue).cbor
        #expect(try await reopened.status(of: .clientPIN, retries) == .pinNotSet)
        #expect(try await fresh.setPIN("4321") == .success)
        #expect(try await fresh.pinRetries().retries == 8, "a new PIN starts with every retry")
    }

    @Test(arguments: bothProtocols)
    func aMismatchRegeneratesTheKeyAgreementKey(version: PinUvAuthProtocolVersion) async throws {
        let h = Harness()
        let platform = PlatformPIN(h, version)
        #expect(try await platform.setPIN("1234") == .success)
        let agreement = try await platform.keyAgreement()
        #expect(try await platform.token(pin: "0000", agreement: agreement).0 == .pinInvalid)
        // The shared secret from before the mismatch is worthless now, even with the right PIN.
        #expect(try await platform.token(pin: "1234", agreement: agreement).0 == .pinInvalid)
        #expect(try await platform.token(pin: "1234").0 == .success)
    }

    @Test func withoutAPINThePINSubcommandsSayPINNotSet() async throws {
        let platform = PlatformPIN(Harness(), .two)
        #expect(try await platform.token(pin: "1234").0 == .pinNotSet)
        #expect(try await platform.token(pin: "1234", permissions: .mc).0 == .pinNotSet)
        #expect(try await platform.changePIN(from: "1234", to: "5678") == .pinNotSet)
    }

    @Test func protocolsOtherThanOneAndTwoAreInvalidParameters() async throws {
        let h = Harness()
        #expect(
            try await h.status(
                of: .clientPIN, ClientPINRequest(subCommand: .getKeyAgreement, pinUvAuthProtocol: 3).cbor)
                == .invalidParameter)
        #expect(
            try await h.status(of: .clientPIN, ClientPINRequest(subCommand: .getKeyAgreement).cbor) == .missingParameter
        )
        #expect(try await h.status(of: .clientPIN, [0x01: 2, 0x02: 0x08]) == .invalidSubcommand)
        // A platform key that is not a point on P-256.
        let offCurve = COSEKey.p256(
            x: Array(repeating: 1, count: 32), y: Array(repeating: 2, count: 32), algorithm: .ecdhESHKDF256)
        let request = ClientPINRequest(
            subCommand: .setPIN, pinUvAuthProtocol: 2, keyAgreement: offCurve,
            pinUvAuthParam: Array(repeating: 0, count: 32), newPinEnc: Array(repeating: 0, count: 80))
        #expect(try await h.status(of: .clientPIN, request.cbor) == .invalidParameter)
    }

    @Test(arguments: bothProtocols)
    func tokenPermissionsMustBeGrantable(version: PinUvAuthProtocolVersion) async throws {
        let h = Harness()
        let platform = PlatformPIN(h, version)
        #expect(try await platform.setPIN("1234") == .success)
        #expect(
            try await platform.token(pin: "1234", permissions: PinUvAuthTokenPermissions(rawValue: 0)).0
                == .invalidParameter)
        for refused in [PinUvAuthTokenPermissions.be, [.mc, .be]] {
            #expect(try await platform.token(pin: "1234", permissions: refused).0 == .unauthorizedPermission)
        }
        // Refusing a permission is not a wrong PIN.
        #expect(try await platform.pinRetries().retries == 8)
        #expect(try await platform.token(pin: "1234", permissions: [.mc, .ga, .cm, .lbw, .acfg]).0 == .success)
        // The legacy subcommand takes no permissions of its own.
        let (platformKey, secret) = try await platform.keyAgreement()
        let legacy = ClientPINRequest(
            subCommand: .getPinToken, pinUvAuthProtocol: version.rawValue, keyAgreement: platformKey,
            pinHashEnc: try platform.implementation.encrypt(key: secret, plaintext: PINHash.of("1234")),
            rpId: "example.com")
        #expect(try await h.status(of: .clientPIN, legacy.cbor) == .invalidParameter)
    }

    @Test func aForcedPINChangeBlocksTokensUntilTheChange() async throws {
        let h = Harness()
        let platform = PlatformPIN(h, .two)
        #expect(try await platform.setPIN("1234") == .success)
        try await h.authenticator.updateDeviceState { $0.forcePINChange = true }
        #expect(try await platform.info().forcePINChange == true)
        #expect(
            try await platform.token(pin: "1234").0 == .pinInvalid,
            "python-fido2's device suite (test_config.py) expects PIN_INVALID, as hardware keys answer")
        #expect(try await platform.token(pin: "1234", permissions: .ga).0 == .pinInvalid)
        #expect(try await platform.pinRetries().retries == 8, "the PIN itself was right")
        #expect(try await platform.changePIN(from: "1234", to: "1234") == .pinPolicyViolation)
        #expect(try await platform.changePIN(from: "1234", to: "24680") == .success)
        #expect(try await platform.info().forcePINChange == false)
        #expect(try await platform.token(pin: "24680").0 == .success)
    }

    @Test func thePINIsStoredOnlyAsItsHash() async throws {
        let h = Harness()
        #expect(try await PlatformPIN(h, .two).setPIN("correct horse") == .success)
        let state = try #require(await h.store.loadDeviceState())
        #expect(state.pinHash == PINHash.of("correct horse"))
    }
}
