import CBOR
import CTAP
import Crypto
import Logging
import Testing

@testable import Authenticator

/// `NonDiscoverableCredentials` keeping the non-discoverable credentials the device makes while
/// the test controls are open (issue 41): listed by the export with the user they were made for,
/// their own counter and backup flags, removable, never discovered or counted; and a store that
/// does not keep them (every daemon without open controls) keeping nothing, its IDs wrapped.
@Suite struct NonDiscoverableCredentialsTests {
    struct Device {
        let authenticator: Authenticator
        let kept: NonDiscoverableCredentials
        let base = InMemoryCredentialStore()

        init(keeping: Bool, profile: DeviceProfile = .fido21) {
            let controls = TestControls(
                logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }),
                admitsTokenlessCredentialControls: true)
            kept = NonDiscoverableCredentials(base: base, keepingMadeCredentials: keeping)
            var configuration = Authenticator.Configuration(profile: profile)
            // A clock that never moves: authenticatorReset stays inside its 10 s of power-up on a busy machine.
            let clock = ManualClock()
            configuration.now = { clock.now() }
            authenticator = Authenticator(
                store: kept, presence: ScriptedPresence([.approved]), configuration: configuration,
                logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }), controls: controls)
        }

        func send(_ command: CTAPCommand, _ body: CBORValue? = nil) async throws -> (CTAPStatus, CBORValue?) {
            let reply = await authenticator.handle([command.rawValue] + (body?.encoded ?? []))
            let status = try #require(CTAPStatus(rawValue: reply[0]))
            return (status, reply.count > 1 ? try CBORDecoder.decode(Array(reply.dropFirst())) : nil)
        }

        /// A non-resident credential for `user`: its ID and public key.
        func make(user: PublicKeyCredentialUserEntity) async throws -> ([UInt8], COSEKey) {
            let (status, body) = try await send(.makeCredential, Fixture.makeCredential(user: user, rk: false).cbor)
            try #require(status == .success)
            let response = try MakeCredentialResponse(cbor: try #require(body))
            let attested = try #require(
                try AuthenticatorData(bytes: response.attestation.authenticatorData).attestedCredentialData)
            return (attested.credentialID, attested.publicKey)
        }

        func assertion(allow: [[UInt8]] = []) async throws -> (CTAPStatus, GetAssertionResponse?) {
            let (status, body) = try await send(.getAssertion, Fixture.getAssertion(allow: allow).cbor)
            return (status, try body.map { try GetAssertionResponse(cbor: $0) })
        }

        func export(_ parameters: ExportParameters = ExportParameters()) async throws -> [CredentialRecord] {
            let (status, body) = try await send(
                .passkeydExport, AuthenticatedVendorRequest(parameters: parameters).cbor)
            try #require(status == .success)
            return try ExportResponse(cbor: try #require(body)).credentials
        }

        func vendor<P: CTAPStructure & Hashable>(_ command: CTAPCommand, _ parameters: P) async throws -> CTAPStatus {
            try await send(command, AuthenticatedVendorRequest(parameters: parameters).cbor).0
        }

        /// A U2F command's status word and data.
        func u2f(_ request: U2FRequest) async -> (StatusWord?, [UInt8]) {
            let reply = await authenticator.handleAPDU(request.apdu.bytes, from: .platform, progress: { _ in })
            let status = StatusWord(rawValue: UInt16(reply[reply.count - 2]) << 8 | UInt16(reply[reply.count - 1]))
            return (status, Array(reply.dropLast(2)))
        }

        /// U2F_REGISTER for `application`: the key handle (FIDO U2F Raw Message Formats §4.3).
        func u2fRegister(_ application: [UInt8]) async throws -> [UInt8] {
            let (status, data) = await u2f(
                .register(U2FRegisterRequest(challenge: [UInt8](repeating: 1, count: 32), application: application)))
            try #require(status == .noError)
            return Array(data[67..<(67 + Int(data[66]))])
        }

        func u2fAuthenticate(_ keyHandle: [UInt8], _ application: [UInt8]) async -> StatusWord? {
            await u2f(
                .authenticate(
                    U2FAuthenticateRequest(
                        control: .enforceUserPresence, challenge: [UInt8](repeating: 2, count: 32),
                        application: application, keyHandle: keyHandle))
            ).0
        }
    }

    static let application = Array(SHA256.hash(data: Array(Fixture.rp.id.utf8)))

    /// Chrome's virtual U2F authenticator lists what a U2F registration made, with no RP ID and
    /// no user handle (U2F gives the device the RP ID's hash alone), and removing it stops it
    /// working; so does passkeyd's while its test controls are open.
    @Test(arguments: [DeviceProfile.u2f, .fido21])
    func aU2FRegistrationIsListedByItsApplicationAndRemovable(profile: DeviceProfile) async throws {
        let device = Device(keeping: true, profile: profile)
        let keyHandle = try await device.u2fRegister(Self.application)
        #expect(keyHandle.count == 32)

        let listed = try #require(try await device.export().first)
        #expect(listed.id == keyHandle && listed.discoverable == false && listed.algorithm == -7)
        #expect(listed.rp.id.isEmpty && listed.user.id.isEmpty && listed.application == Self.application)
        #expect(try await device.export(ExportParameters(rpID: Fixture.rp.id)).map(\.id) == [keyHandle])
        #expect(try await device.export(ExportParameters(rpID: "other.example")).isEmpty)

        #expect(await device.u2fAuthenticate(keyHandle, Self.application) == .noError)
        #expect(
            await device.u2fAuthenticate(keyHandle, Array(SHA256.hash(data: Array("other.example".utf8)))) == .wrongData
        )
        #expect(try await device.export().first?.signCount == 1, "its own counter")
        if profile == .fido21 {
            // A CTAP2 request for the RP finds it by the RP ID's hash; another RP's does not.
            #expect(try await device.assertion(allow: [keyHandle]).0 == .success)
            let (status, _) = try await device.send(
                .getAssertion, Fixture.getAssertion(rpID: "other.example", allow: [keyHandle]).cbor)
            #expect(status == .noCredentials)
        }

        #expect(try await device.vendor(.passkeydDelete, DeleteParameters(credentialID: keyHandle)) == .success)
        #expect(await device.u2fAuthenticate(keyHandle, Self.application) == .wrongData)
        #expect(try await device.export().isEmpty)
    }

    /// Without open test controls nothing is kept (the key handle seals the key), and a U2F-only
    /// profile answers no CBOR at all, the test controls' commands included.
    @Test func aU2FRegistrationIsKeptOnlyUnderOpenTestControls() async throws {
        let device = Device(keeping: false, profile: .u2f)
        let keyHandle = try await device.u2fRegister(Self.application)
        #expect(keyHandle.count > 32, "the wrapped key")
        #expect(try await device.export().isEmpty)
        #expect(await device.u2fAuthenticate(keyHandle, Self.application) == .noError)

        let closed = Harness(profile: .u2f)
        #expect(try await closed.status(of: .passkeydExport) == .invalidCommand)
        #expect(!closed.authenticator.answersCBOR(command: CTAPCommand.passkeydExport.rawValue))
        #expect(device.authenticator.answersCBOR(command: CTAPCommand.passkeydExport.rawValue))
        #expect(!device.authenticator.answersCBOR(command: CTAPCommand.getInfo.rawValue))
    }

    /// An import names its RP: a record carrying a U2F application parameter is refused.
    @Test func anImportCarriesNoApplicationParameter() async throws {
        let device = Device(keeping: true)
        let key = P256.Signing.PrivateKey()
        let record = CredentialRecord(
            id: [9, 9], rp: PublicKeyCredentialRpEntity(id: Fixture.rp.id), user: PublicKeyCredentialUserEntity(id: []),
            algorithm: -7, privateKey: Array(key.rawRepresentation), discoverable: false, application: Self.application)
        #expect(try await device.vendor(.passkeydImport, ImportParameters(credential: record)) == .invalidParameter)
        #expect(try await device.export().isEmpty)
    }

    @Test func aMadeNonResidentCredentialIsListedCountedOnItsOwnAndRemovable() async throws {
        let device = Device(keeping: true)
        let user = Fixture.user(3, name: "ada")
        let (id, publicKey) = try await device.make(user: user)
        #expect(id.count == 32, "a random ID: the key is kept, not sealed in it")
        #expect(CredentialWrapping.unwrap(id, rpIDHash: [], wrappingKey: []) == nil)

        var listed = try #require(try await device.export().first)
        #expect(try await device.export().count == 1)
        #expect(listed.id == id && listed.rp.id == Fixture.rp.id && listed.discoverable == false)
        #expect(listed.user.id == user.id && listed.user.name == "ada", "the user.id given at creation")
        #expect(listed.algorithm == -7 && listed.signCount == 0)
        #expect(listed.backupEligible == false && listed.backupState == false)

        // It signs with the key it was made with; its counter is its own and rises in the listing.
        for expected in 1...2 {
            let (status, response) = try await device.assertion(allow: [[9, 9, 9], id])
            let answer = try #require(response, "\(status)")
            #expect(answer.credential.id == id)
            #expect(answer.user == nil, "an assertion names no user for a non-discoverable credential")
            #expect(try AuthenticatorData(bytes: answer.authenticatorData).signCount == UInt32(expected))
            #expect(
                try verify(
                    signature: answer.signature, over: answer.authenticatorData + Fixture.clientDataHash,
                    with: publicKey))
        }
        listed = try #require(try await device.export(ExportParameters(credentialID: id)).first)
        #expect(listed.signCount == 2 && listed.user.id == user.id)

        // Never discovered, never counted by credential management or getInfo.
        #expect(try await device.assertion().0 == .noCredentials)
        #expect(try await device.kept.count() == 0)
        #expect(try await device.kept.allCredentials().isEmpty)
        let info = try GetInfoResponse(cbor: try #require(try await device.send(.getInfo).1))
        #expect(info.remainingDiscoverableCredentials == device.kept.capacity)

        // Its properties change what the next assertion reports; the listing keeps its user.
        let flags = CredentialFlagsParameters(credentialID: id, backupEligible: true, backupState: true, signCount: 100)
        #expect(try await device.vendor(.passkeydCredentialFlags, flags) == .success)
        let after = try #require(try await device.assertion(allow: [id]).1)
        let authData = try AuthenticatorData(bytes: after.authenticatorData)
        #expect(authData.signCount == 101)
        #expect(authData.flags.contains(.backupEligible) && authData.flags.contains(.backedUp))
        listed = try #require(try await device.export(ExportParameters(credentialID: id)).first)
        #expect(listed.backupState == true && listed.signCount == 101 && listed.user.id == user.id)

        // Removed, it answers no more: an unknown credential.
        #expect(try await device.vendor(.passkeydDelete, DeleteParameters(credentialID: id)) == .success)
        #expect(try await device.assertion(allow: [id]).0 == .noCredentials)
        #expect(try await device.export().isEmpty)
    }

    @Test func authenticatorResetForgetsTheMadeCredentials() async throws {
        let device = Device(keeping: true)
        let (id, _) = try await device.make(user: Fixture.user(1))
        #expect(try await device.export().count == 1)
        #expect(try await device.send(.reset).0 == .success)
        #expect(try await device.export().isEmpty)
        #expect(try await device.assertion(allow: [id]).0 == .noCredentials)
    }

    @Test func anExcludeListNamingAMadeCredentialIsRefused() async throws {
        let device = Device(keeping: true)
        let (id, _) = try await device.make(user: Fixture.user(1))
        let again = Fixture.makeCredential(user: Fixture.user(2), rk: false, exclude: [id])
        #expect(try await device.send(.makeCredential, again.cbor).0 == .credentialExcluded)
    }

    @Test func aStoreThatKeepsNoneWrapsTheKeyInTheIDAndListsNothing() async throws {
        let device = Device(keeping: false)
        let (id, _) = try await device.make(user: Fixture.user(1))
        #expect(id.count == CredentialWrapping.idLength, "the key sealed in the ID, as ever")
        #expect(try await device.export().isEmpty)
        #expect(await device.kept.nonDiscoverable().isEmpty)
        let (status, response) = try await device.assertion(allow: [id])
        #expect(status == .success && response?.credential.id == id)
        // Nothing to remove: a wrapped ID is stored nowhere.
        #expect(try await device.vendor(.passkeydDelete, DeleteParameters(credentialID: id)) == .noCredentials)
        #expect(try await device.assertion(allow: [id]).0 == .success)
    }

    @Test func theDevicesOwnStoresDeclineToKeepOne() async throws {
        let source = CredentialSource(
            id: [1], rp: Fixture.rp, user: Fixture.user(1), algorithm: .es256, privateKey: [],
            extensions: CredentialExtensionState())
        #expect(try await InMemoryCredentialStore().keepNonDiscoverable(source) == false)
        #expect(
            try await NonDiscoverableCredentials(base: InMemoryCredentialStore()).keepNonDiscoverable(source) == false)
    }
}
