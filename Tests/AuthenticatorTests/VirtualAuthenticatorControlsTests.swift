import CBOR
import CTAP
import Crypto
import Logging
import Testing

@testable import Authenticator

/// The controls behind the Python package's VirtualAuthenticator (docs/vendor-commands.md):
/// non-discoverable imports under a caller's ID, tokenless credential controls, held response
/// override bits, user verification and presence overrides, the counter and deletion.
@Suite struct VirtualAuthenticatorControlsTests {
    struct Device {
        let authenticator: Authenticator
        let controls: TestControls

        init(tokenless: Bool = true, verifier: [VerificationOutcome] = [.verified]) {
            let controls = TestControls(
                logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }),
                admitsTokenlessCredentialControls: tokenless)
            self.controls = controls
            authenticator = Authenticator(
                store: NonDiscoverableCredentials(base: InMemoryCredentialStore()),
                presence: ControlledUserPresence(
                    configured: ScriptedPresence([.approved]), waiting: ScriptedPresence([.denied]), controls: controls),
                verifier: ControlledUserVerifier(configured: ScriptedVerifier(verifier), controls: controls),
                logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }), controls: controls)
        }

        func send(_ command: CTAPCommand, _ body: CBORValue) async throws -> (CTAPStatus, CBORValue?) {
            let reply = await authenticator.handle([command.rawValue] + body.encoded)
            let status = try #require(CTAPStatus(rawValue: reply[0]))
            return (status, reply.count > 1 ? try CBORDecoder.decode(Array(reply.dropFirst())) : nil)
        }

        func importing(_ record: CredentialRecord) async throws -> CTAPStatus {
            try await send(
                .passkeydImport, AuthenticatedVendorRequest(parameters: ImportParameters(credential: record)).cbor
            ).0
        }

        func assertion(allow: [[UInt8]] = [], uv: Bool? = nil) async throws -> (CTAPStatus, GetAssertionResponse?) {
            let (status, body) = try await send(.getAssertion, Fixture.getAssertion(allow: allow, uv: uv).cbor)
            return (status, try body.map { try GetAssertionResponse(cbor: $0) })
        }
    }

    static func record(id: [UInt8], discoverable: Bool? = nil, signCount: Int = 0, user: [UInt8] = [7])
        -> (CredentialRecord, P256.Signing.PrivateKey)
    {
        let key = P256.Signing.PrivateKey()
        return (
            CredentialRecord(
                id: id, rp: Fixture.rp, user: PublicKeyCredentialUserEntity(id: user), algorithm: -7,
                signCount: signCount, privateKey: Array(key.rawRepresentation), discoverable: discoverable), key
        )
    }

    @Test func aNonDiscoverableImportAnswersItsAllowListAndIsNeverDiscovered() async throws {
        let device = Device()
        let id = [UInt8](repeating: 0xA5, count: CredentialSource.maxImportedIDLength)
        let (record, _) = Self.record(id: id, discoverable: false, user: [])
        #expect(try await device.importing(record) == .success)
        #expect(try await device.assertion().0 == .noCredentials, "discovery offers it not")
        let (status, response) = try await device.assertion(allow: [[1, 2, 3], id])
        #expect(status == .success)
        #expect(response?.credential.id == id)
        #expect(response?.user == nil, "no user handle, no user member")
        #expect(try await device.authenticator.store.count() == 0, "credential management counts it not")
        // Exported with its flag; the same ID again is refused.
        let (_, page) = try await device.send(
            .passkeydExport, AuthenticatedVendorRequest(parameters: ExportParameters()).cbor)
        let exported = try ExportResponse(cbor: try #require(page))
        #expect(exported.credentials.map(\.discoverable) == [false])
        #expect(try await device.importing(Self.record(id: id).0) == .credentialExcluded)
    }

    @Test func anIDOverWebAuthnsLimitIsRefused() async throws {
        let device = Device()
        let (record, _) = Self.record(id: [UInt8](repeating: 1, count: CredentialSource.maxImportedIDLength + 1))
        #expect(try await device.importing(record) == .invalidParameter)
    }

    @Test func withoutTheFlagAControlWithoutATokenIsRefused() async throws {
        let device = Device(tokenless: false)
        #expect(try await device.importing(Self.record(id: [1]).0) == .puatRequired)
        let delete = AuthenticatedVendorRequest(parameters: DeleteParameters(credentialID: [1])).cbor
        #expect(try await device.send(.passkeydDelete, delete).0 == .puatRequired)
    }

    @Test func overrideBitsHoldUntilChangedAndResetPutsThemRight() async throws {
        let device = Device()
        let (record, _) = Self.record(id: [9, 9])
        #expect(try await device.importing(record) == .success)
        await device.controls.apply(ControlSettings(responseOverrides: ResponseOverrides(badUP: true)))
        for _ in 0..<2 {
            let response = try #require(try await device.assertion(allow: [[9, 9]]).1)
            #expect(!(try AuthenticatorData(bytes: response.authenticatorData).flags.contains(.userPresent)))
        }
        await device.controls.resetSettings()
        let response = try #require(try await device.assertion(allow: [[9, 9]]).1)
        #expect(try AuthenticatorData(bytes: response.authenticatorData).flags.contains(.userPresent))
    }

    @Test func userVerificationAndPresenceFollowTheirOverrides() async throws {
        let device = Device()
        let (record, _) = Self.record(id: [4])
        #expect(try await device.importing(record) == .success)
        await device.controls.apply(ControlSettings(userVerified: false))
        #expect(try await device.assertion(allow: [[4]], uv: true).0 != .success)
        await device.controls.apply(ControlSettings(userVerified: true, automaticPresence: false))
        #expect(try await device.assertion(allow: [[4]]).0 == .operationDenied, "presence waits: here, a denial")
        await device.controls.apply(ControlSettings(automaticPresence: true))
        let response = try #require(try await device.assertion(allow: [[4]], uv: true).1)
        #expect(try AuthenticatorData(bytes: response.authenticatorData).flags.contains(.userVerified))
    }

    @Test func aSetCounterIsTheLastOneUsedAndDeletionForgetsTheCredential() async throws {
        let device = Device()
        let (record, _) = Self.record(id: [5], discoverable: false)
        #expect(try await device.importing(record) == .success)
        let flags = AuthenticatedVendorRequest(
            parameters: CredentialFlagsParameters(credentialID: [5], signCount: 100)
        ).cbor
        #expect(try await device.send(.passkeydCredentialFlags, flags).0 == .success)
        let response = try #require(try await device.assertion(allow: [[5]]).1)
        #expect(try AuthenticatorData(bytes: response.authenticatorData).signCount == 101)
        let delete = AuthenticatedVendorRequest(parameters: DeleteParameters(credentialID: [5])).cbor
        #expect(try await device.send(.passkeydDelete, delete).0 == .success)
        #expect(try await device.assertion(allow: [[5]]).0 == .noCredentials)
        #expect(try await device.send(.passkeydDelete, delete).0 == .noCredentials)
    }

    @Test func aDeviceWithoutResidentKeysSaysSoAndRefusesOne() async throws {
        let h = Harness(profile: DeviceProfile.fido21.withoutResidentKeys())
        let (status, body) = try await h.send(.getInfo)
        #expect(status == .success)
        #expect(try GetInfoResponse(cbor: try #require(body)).options["rk"] == false)
        #expect(try await h.status(of: .makeCredential, Fixture.makeCredential(rk: true).cbor) == .unsupportedOption)
        #expect(try await h.status(of: .makeCredential, Fixture.makeCredential(rk: false).cbor) == .success)
    }

    @Test func theConditionalAnswerIsTakenOnceForItsRP() async {
        let controls = TestControls()
        await controls.apply(ControlSettings(conditional: ConditionalAnswer(credentialID: [1], rpID: "a.example")))
        #expect(await controls.takeConditional(rpID: "b.example") == nil)
        #expect(await controls.takeConditional(rpID: "a.example")?.credentialID == [1])
        #expect(await controls.takeConditional(rpID: "a.example") == nil)
    }

    @Test func controlsCommandsRoundTripThroughCBOR() throws {
        let commands: [ControlsCommand] = [
            .get, .reset, .takeConditional(rpID: "example.com"),
            .set(
                ControlSettings(
                    userVerified: false, automaticPresence: true,
                    responseOverrides: ResponseOverrides(bogusSignature: true),
                    conditional: ConditionalAnswer(credentialID: [1, 2], rpID: "example.com")), clearConditional: false),
            .set(ControlSettings(), clearConditional: true)
        ]
        for command in commands { #expect(try ControlsCommand(bytes: command.cbor.encoded) == command) }
        #expect(throws: CTAPStatus.invalidSubcommand) { try ControlsCommand(bytes: CBORValue.map(["op": "x"]).encoded) }
    }
}
