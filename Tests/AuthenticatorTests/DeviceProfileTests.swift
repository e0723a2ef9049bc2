import CBOR
import CTAP
import Testing

@testable import Authenticator

/// What each profile advertises, and the CTAP 2.0 rules the fido2.0 profile's steps follow
/// (docs/profiles.md; the interop suite provokes every row against the daemon too).
struct DeviceProfileTests {
    @Test func profilesAreNamedAsTheFlagSaysAndNoOther() {
        #expect(DeviceProfile.all.map(\.name) == ["u2f", "fido2.0", "fido2.1-pre", "fido2.1", "fido2.2"])
        #expect(DeviceProfile(named: "fido2.1-pre") == .fido21Preview)
        #expect(DeviceProfile(named: "fido2.0") == .fido20)
        #expect(DeviceProfile(named: "fido2") == nil)
    }

    @Test func fido20AdvertisesOnlyWhatCTAP20Has() async throws {
        let h = Harness(profile: .fido20)
        let (status, body) = try await h.send(.getInfo)
        #expect(status == .success)
        let info = try GetInfoResponse(cbor: try #require(body))
        #expect(info.versions == ["U2F_V2", "FIDO_2_0"])
        #expect(info.pinUvAuthProtocols == [1])
        #expect(info.extensions == ["hmac-secret"])
        #expect(Set(info.options.keys) == ["rk", "up", "plat", "clientPin"])
        #expect(
            info.algorithms.isEmpty && info.maxCredentialCountInList == nil
                && info.remainingDiscoverableCredentials == nil)
    }

    @Test func fido20WithholdsTheCommandsAndSubcommandsOf21() async throws {
        let h = Harness(profile: .fido20)
        #expect(
            try await h.status(
                of: .credentialManagement, CredentialManagementRequest(subCommand: .getCredsMetadata).cbor)
                == .invalidCommand)
        #expect(
            try await h.status(
                of: .credentialManagementPreview, CredentialManagementRequest(subCommand: .getCredsMetadata).cbor)
                == .invalidCommand)
        #expect(try await h.status(of: .selection) == .invalidCommand)
        #expect(
            try await h.status(of: .clientPIN, ClientPINRequest(subCommand: .getUVRetries).cbor) == .invalidSubcommand)
        #expect(
            try await h.status(
                of: .clientPIN, ClientPINRequest(subCommand: .getPinUvAuthTokenUsingPinWithPermissions).cbor)
                == .invalidSubcommand)
        #expect(
            try await h.status(
                of: .clientPIN, ClientPINRequest(subCommand: .getKeyAgreement, pinUvAuthProtocol: 2).cbor)
                == .invalidParameter)
        #expect(
            try await h.status(
                of: .clientPIN, ClientPINRequest(subCommand: .getKeyAgreement, pinUvAuthProtocol: 1).cbor) == .success)
    }

    @Test func optionStatusesFollowTheRuleSet() async throws {
        for (profile, rk, uv) in [
            (DeviceProfile.fido20, CTAPStatus.invalidOption, CTAPStatus.unsupportedOption),
            (.fido21, .unsupportedOption, .invalidOption)
        ] {
            let h = Harness(profile: profile)
            var request = Fixture.getAssertion()
            request.options.rk = true
            #expect(try await h.status(of: .getAssertion, request.cbor) == rk, "\(profile)")
            #expect(try await h.status(of: .getAssertion, Fixture.getAssertion(uv: true).cbor) == uv, "\(profile)")
            #expect(
                try await h.status(of: .makeCredential, Fixture.makeCredential(rk: false, uv: true).cbor) == uv,
                "\(profile)")
        }
    }

    @Test func a20DeviceTypeChecksEntityIcons() async throws {
        for (profile, mistyped) in [(DeviceProfile.fido20, CTAPStatus.cborUnexpectedType), (.fido21, .success)] {
            let h = Harness(profile: profile)
            var value = try #require(Fixture.makeCredential(rk: false).cbor.mapValue)
            var rp = try #require(value[2]?.mapValue)
            rp["icon"] = 7
            value[2] = .map(rp)
            #expect(try await h.status(of: .makeCredential, .map(value)) == mistyped, "\(profile)")
            rp["icon"] = "https://example.com/icon.png"
            value[2] = .map(rp)
            #expect(try await h.status(of: .makeCredential, .map(value)) == .success, "\(profile)")
        }
    }

    @Test func aPINProtectsEveryCredentialUnder20AndDiscoverableOnesUnder21() async throws {
        for (profile, nonDiscoverable) in [(DeviceProfile.fido20, CTAPStatus.puatRequired), (.fido21, .success)] {
            let h = Harness(profile: profile)
            #expect(try await PlatformPIN(h, .one).setPIN("1234") == .success)
            #expect(
                try await h.status(of: .makeCredential, Fixture.makeCredential(rk: false).cbor) == nonDiscoverable,
                "\(profile)")
            #expect(
                try await h.status(of: .makeCredential, Fixture.makeCredential(rk: true).cbor) == .puatRequired,
                "\(profile)")
        }
    }

    @Test func a20PinTokenServesUntilThePowerCycle() async throws {
        for (profile, second) in [(DeviceProfile.fido20, CTAPStatus.success), (.fido21, .pinAuthInvalid)] {
            let h = Harness(profile: profile)
            let platform = PlatformPIN(h, .one)
            #expect(try await platform.setPIN("1234") == .success)
            let token = try await platform.grantedToken(pin: "1234")
            #expect(
                try await h.status(of: .makeCredential, platform.makeCredential(token).cbor) == .success, "\(profile)")
            #expect(
                try await h.status(of: .makeCredential, platform.makeCredential(token, user: Fixture.user(2)).cbor)
                    == second, "\(profile)")
            // Nor does a 2.0 token expire with the 2.1 usage timer.
            h.clock.advance(.seconds(700))
            let later = try await h.status(of: .getAssertion, platform.getAssertion(token).cbor)
            #expect(later == (profile == .fido20 ? .success : .pinAuthInvalid), "\(profile)")
        }
    }

    @Test func fido21PreviewAdvertisesWhatAReviewDraftKeyReports() async throws {
        let info = try await PlatformPIN(Harness(profile: .fido21Preview), .one).info()
        #expect(info.versions == ["U2F_V2", "FIDO_2_0", "FIDO_2_1_PRE"])
        #expect(info.pinUvAuthProtocols == [1])
        #expect(Set(info.extensions) == ["credProtect", "hmac-secret"])
        #expect(Set(info.options.keys) == ["rk", "up", "plat", "clientPin", "credentialMgmtPreview"])
        #expect(info.options["credentialMgmtPreview"] == true)
        // Members 0x07–0x0A, none of 2.1's later ones.
        #expect(info.maxCredentialCountInList != nil && !info.algorithms.isEmpty && info.transports == ["usb"])
        #expect(info.remainingDiscoverableCredentials == nil && info.minPINLength == nil && info.firmwareVersion == nil)
    }

    @Test func fido21PreviewAnswersOnlyThePrototypeCommands() async throws {
        let h = Harness(profile: .fido21Preview)
        for command in [CTAPCommand.credentialManagement, .bioEnrollment, .selection, .largeBlobs, .config] {
            #expect(try await h.status(of: command, .map([1: 1])) == .invalidCommand, "\(command)")
        }
        #expect(
            try await h.status(
                of: .clientPIN, ClientPINRequest(subCommand: .getPinUvAuthTokenUsingPinWithPermissions).cbor)
                == .invalidSubcommand)
        #expect(
            try await h.status(
                of: .clientPIN, ClientPINRequest(subCommand: .getPinUvAuthTokenUsingUvWithPermissions).cbor)
                == .invalidSubcommand)
        #expect(
            try await h.status(
                of: .clientPIN, ClientPINRequest(subCommand: .getKeyAgreement, pinUvAuthProtocol: 2).cbor)
                == .invalidParameter)
    }

    /// The review draft's pinToken manages credentials through 0x41; 2.1's getPinToken token has
    /// mc and ga only, so 0x0A refuses it (2.1 §6.5.5.7.1) where the review draft had no 0x0A.
    @Test func getPinTokensTokenManagesCredentialsUnderTheReviewDraft() async throws {
        for (profile, final, preview) in [
            (DeviceProfile.fido21Preview, CTAPStatus.invalidCommand, CTAPStatus.success),
            (.fido21, .pinAuthInvalid, .success)
        ] {
            let h = Harness(profile: profile)
            let platform = PlatformPIN(h, .one)
            #expect(try await platform.setPIN("1234") == .success)
            let token = try await platform.grantedToken(pin: "1234")
            #expect(
                try await h.status(of: .makeCredential, platform.makeCredential(token).cbor) == .success, "\(profile)")
            // A 2.1 token is spent by the presence makeCredential collected; the draft's serves on.
            let managing = profile == .fido21 ? try await platform.grantedToken(pin: "1234") : token
            let metadata = platform.credentialManagement(.getCredsMetadata, token: managing).cbor
            #expect(try await h.status(of: .credentialManagement, metadata) == final, "\(profile)")
            #expect(try await h.status(of: .credentialManagementPreview, metadata) == preview, "\(profile)")
        }
    }

    @Test func updateUserInformationCameWith21() async throws {
        for (profile, status) in [
            (DeviceProfile.fido21Preview, CTAPStatus.invalidSubcommand), (.fido21, .noCredentials)
        ] {
            let h = Harness(profile: profile)
            let platform = PlatformPIN(h, .one)
            #expect(try await platform.setPIN("1234") == .success)
            let token = try await platform.grantedToken(pin: "1234", permissions: profile == .fido21 ? .cm : nil)
            let params = CredentialManagementParameters(
                credentialID: PublicKeyCredentialDescriptor(id: [1, 2, 3]), user: Fixture.user(1))
            let update = platform.credentialManagement(.updateUserInformation, params, token: token).cbor
            #expect(try await h.status(of: .credentialManagementPreview, update) == status, "\(profile)")
        }
    }

    @Test func fido22AddsTheMembersOf22() async throws {
        let info = try await PlatformPIN(Harness(profile: .fido22), .one).info()
        #expect(info.versions == ["U2F_V2", "FIDO_2_0", "FIDO_2_1", "FIDO_2_2"])
        #expect(info.attestationFormats == ["packed", "none"])
        #expect(info.longTouchForReset == false && info.transportsForReset == ["usb"])
        #expect(info.pinComplexityPolicy == false && info.maxPINLength == 63)
        #expect(info.authenticatorConfigCommands == [2, 3])
        // No built-in UV method, no count of its uses.
        #expect(info.uvCountSinceLastPinEntry == nil)
        let older = try await PlatformPIN(Harness(profile: .fido21), .one).info()
        #expect(
            older.attestationFormats == nil && older.maxPINLength == nil && older.authenticatorConfigCommands == nil)
    }
}
