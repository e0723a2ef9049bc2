import Authenticator
import CTAP
import Logging
import RelyingParty
import Testing
import WebAuthn

@testable import PasskeyClient

/// credProtect, credBlob/getCredBlob and hmacCreateSecret (CTAP 2.1 §12.1, §12.2, §12.5) as
/// client extensions, and getClientCapabilities' extension keys (WebAuthn L3 §5.1.7), against
/// the in-process authenticator: the inputs reach it (its own authData outputs say so) and the
/// client outputs come back.
@Suite struct ClientExtensionsTests {
    let rp = RelyingParty(id: "example.com", name: "Example", origins: ["https://example.com"])

    /// A client over an authenticator offering only `extensions` (all of passkeyd's by default).
    static func client(offering extensions: Set<String>? = nil) throws -> WebAuthnClient {
        var configuration = Authenticator.Configuration()
        if let extensions { configuration.extensions = ExtensionRegistry.standard.selecting(extensions) }
        let authenticator = Authenticator(
            store: InMemoryCredentialStore(), presence: ScriptedPresence.always(.approved),
            verifier: ScriptedVerifier.always(.verified), configuration: configuration,
            logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }))
        return try WebAuthnClient(
            transport: InProcessTransport(device: authenticator), origin: "https://example.com",
            userAgent: ScriptedUserAgent())
    }

    func create(
        _ client: WebAuthnClient, _ extensions: AuthenticationExtensionsClientInputsJSON, resident: Bool = true,
        userVerification: UserVerificationRequirement = .required
    ) async throws -> RegistrationResponseJSON {
        var options = await rp.registrationOptions(user: ClientHarness.user("alice"))
        options.authenticatorSelection = AuthenticatorSelectionCriteria(
            residentKey: resident ? .required : .discouraged, userVerification: userVerification)
        options.extensions = extensions
        return try await client.create(options)
    }

    /// The authenticator's own extension outputs in the new credential's authenticator data.
    func authenticatorOutputs(_ response: RegistrationResponseJSON) throws -> ExtensionMap {
        try AuthenticatorData(bytes: response.response.authenticatorData).extensionOutputs()
    }

    @Test(arguments: CredentialProtectionPolicy.allCases)
    func credentialProtectionPolicyReachesTheAuthenticator(_ policy: CredentialProtectionPolicy) async throws {
        let client = try Self.client()
        let created = try await create(
            client, .init(credentialProtectionPolicy: policy.rawValue, enforceCredentialProtectionPolicy: true),
            resident: policy != .userVerificationOptional)
        let applied = try authenticatorOutputs(created).makeCredentialOutput(CredProtect.self)
        #expect(applied?.rawValue == CredentialProtectionPolicy.allCases.firstIndex(of: policy)! + 1)
    }

    @Test func anUnknownPolicyIsNotSupported() async throws {
        let client = try Self.client()
        await expectWebAuthnError(.notSupported) {
            try await create(client, .init(credentialProtectionPolicy: "bogus"))
        }
    }

    @Test func enforcingAPolicyTheAuthenticatorCannotApplyIsRefused() async throws {
        let client = try Self.client(offering: [HMACSecret.identifier])
        for policy in ["userVerificationOptionalWithCredentialIDList", "userVerificationRequired"] {
            await expectWebAuthnError(.notAllowed) {
                try await create(
                    client, .init(credentialProtectionPolicy: policy, enforceCredentialProtectionPolicy: true))
            }
        }
        // Not enforced, or optional anyway: created without credProtect.
        let unenforced = try await create(client, .init(credentialProtectionPolicy: "userVerificationRequired"))
        #expect(try authenticatorOutputs(unenforced).makeCredentialOutput(CredProtect.self) == nil)
        _ = try await create(
            client,
            .init(credentialProtectionPolicy: "userVerificationOptional", enforceCredentialProtectionPolicy: true),
            resident: false)
    }

    /// Chromium's consistency rule, which the page can observe: checked before the person is asked.
    @Test func aPolicyInconsistentWithTheOtherOptionsIsNotSupported() async throws {
        let client = try Self.client()
        for verification in [UserVerificationRequirement.preferred, .discouraged] {
            await expectWebAuthnError(.notSupported) {
                try await create(
                    client, .init(credentialProtectionPolicy: "userVerificationRequired"),
                    userVerification: verification)
            }
        }
        await expectWebAuthnError(.notSupported) {
            try await create(
                client,
                .init(credentialProtectionPolicy: "userVerificationOptional", enforceCredentialProtectionPolicy: true))
        }
    }

    @Test func credBlobIsStoredAndReturnedByGetCredBlob() async throws {
        let client = try Self.client()
        let blob: [UInt8] = Array("a small blob".utf8)
        let created = try await create(client, .init(credBlob: blob))
        #expect(created.clientExtensionResults.credBlob == true)
        #expect(try authenticatorOutputs(created).makeCredentialOutput(CredBlob.self) == true)

        var options = await rp.authenticationOptions()
        options.extensions = .init(getCredBlob: true)
        guard case .passkey(let assertion) = try await client.get(options) else {
            throw WebAuthnError.unknown("no passkey")
        }
        #expect(assertion.clientExtensionResults.getCredBlob == blob)
        // Not asked: no output.
        guard case .passkey(let plain) = try await client.get(await rp.authenticationOptions()) else {
            throw WebAuthnError.unknown("no passkey")
        }
        #expect(plain.clientExtensionResults.getCredBlob == nil)
    }

    @Test func aCredBlobLongerThanTheMaximumIsNotStored() async throws {
        let client = try Self.client()
        let created = try await create(client, .init(credBlob: [UInt8](repeating: 7, count: 33)))
        #expect(created.clientExtensionResults.credBlob == false)
        #expect(try authenticatorOutputs(created).makeCredentialOutput(CredBlob.self) == nil)
        var options = await rp.authenticationOptions()
        options.extensions = .init(getCredBlob: true)
        guard case .passkey(let assertion) = try await client.get(options) else {
            throw WebAuthnError.unknown("no passkey")
        }
        #expect(assertion.clientExtensionResults.getCredBlob == [])
    }

    @Test func hmacCreateSecretEnablesHMACSecret() async throws {
        let client = try Self.client()
        let created = try await create(client, .init(hmacCreateSecret: true), resident: false)
        #expect(created.clientExtensionResults.hmacCreateSecret == true)
        #expect(try authenticatorOutputs(created).makeCredentialOutput(HMACSecret.self) == true)
        let without = try await Self.client(offering: [CredProtect.identifier])
        let refused = try await create(without, .init(hmacCreateSecret: true), resident: false)
        #expect(refused.clientExtensionResults.hmacCreateSecret == false)
        let unasked = try await create(client, .init(), resident: false)
        #expect(unasked.clientExtensionResults.hmacCreateSecret == nil)
        #expect(try authenticatorOutputs(unasked).makeCredentialOutput(HMACSecret.self) == nil)
    }

    @Test func capabilitiesFollowTheAuthenticatorsExtensions() async throws {
        let all = try await Self.client().getClientCapabilities()
        #expect(all.count == 24)
        for key in [
            "extension:prf", "extension:largeBlob", "extension:credBlob", "extension:getCredBlob",
            "extension:credentialProtectionPolicy", "extension:enforceCredentialProtectionPolicy",
            "extension:hmacCreateSecret", "extension:credProps", "immediateGet", "conditionalGet"
        ] {
            #expect(all[key] == true, "\(key)")
        }
        for key in [
            "extension:appid", "extension:appidExclude", "extension:cmtgKey", "extension:payment",
            "extension:crossDeviceFallbackUrl", "extension:minPinLength", "hybridTransport", "relatedOrigins"
        ] {
            #expect(all[key] == false, "\(key)")
        }
        let bare = try await Self.client(offering: []).getClientCapabilities()
        #expect(bare.count == 24)
        for key in ["extension:prf", "extension:largeBlob", "extension:credBlob", "extension:hmacCreateSecret"] {
            #expect(bare[key] == false, "\(key)")
        }
    }
}
