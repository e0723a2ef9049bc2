import CBOR
import CTAP
import Crypto
import Testing

@testable import Authenticator
@testable import PasskeyClient

/// The persistent read-only credential-management token (CTAP 2.2 pcmr, `perCredMgmtRO`).
@Suite struct PersistentTokenTests {
    typealias CM = CredentialManagementTests

    @Test(arguments: bothProtocols)
    func itReadsAcrossPowerCyclesAndOtherTokens(version: PinUvAuthProtocolVersion) async throws {
        let (h, platform, _) = try await CM.populated(version)
        #expect(try await platform.info().options["perCredMgmtRO"] == true)
        let persistent = try await platform.grantedToken(pin: "1234", permissions: .pcmr)
        for round in 0..<2 {
            if round == 1 {
                await h.authenticator.powerCycle()
                // A volatile token handed out meanwhile leaves the persistent one standing.
                _ = try await platform.grantedToken(pin: "1234", permissions: .cm)
            }
            let (status, metadata) = try await CM.send(
                h, platform.credentialManagement(.getCredsMetadata, token: persistent))
            #expect(status == .success && metadata?.existingResidentCredentialsCount == 4)
            let (rpStatus, first) = try await CM.send(
                h, platform.credentialManagement(.enumerateRPsBegin, token: persistent))
            #expect(rpStatus == .success && first?.totalRPs == 3)
            let params = CredentialManagementParameters(rpIDHash: CM.hash(CM.rpA.id))
            let (credStatus, credential) = try await CM.send(
                h, platform.credentialManagement(.enumerateCredentialsBegin, params, token: persistent))
            #expect(credStatus == .success && credential?.totalCredentials == 2)
        }
    }

    @Test func itChangesNothing() async throws {
        let (h, platform, ids) = try await CM.populated(.two)
        let persistent = try await platform.grantedToken(pin: "1234", permissions: .pcmr)
        let id = try #require(ids["a.example/1"])
        let delete = CredentialManagementParameters(credentialID: PublicKeyCredentialDescriptor(id: id))
        #expect(
            try await CM.send(h, platform.credentialManagement(.deleteCredential, delete, token: persistent)).0
                == .pinAuthInvalid)
        let update = CredentialManagementParameters(
            credentialID: PublicKeyCredentialDescriptor(id: id), user: Fixture.user(1, name: "renamed"))
        #expect(
            try await CM.send(h, platform.credentialManagement(.updateUserInformation, update, token: persistent)).0
                == .pinAuthInvalid)
        #expect(try await h.store.count() == 4)
        #expect(try await h.store.credential(id: id)?.user.name == Fixture.user(1).name)
        // Nor does it stand in for any other permission.
        await #expect(throws: CTAPStatus.pinAuthInvalid) {
            try await h.makeCredential(platform.makeCredential(persistent))
        }
    }

    @Test func itComesAloneAndGoesWithThePIN() async throws {
        let (h, platform, _) = try await CM.populated(.two)
        #expect(try await platform.token(pin: "1234", permissions: [.pcmr, .cm]).0 == .invalidParameter)
        let persistent = try await platform.grantedToken(pin: "1234", permissions: .pcmr)
        #expect(try await platform.changePIN(from: "1234", to: "5678") == .success)
        #expect(
            try await CM.send(h, platform.credentialManagement(.getCredsMetadata, token: persistent)).0
                == .pinAuthInvalid)
        #expect(try await platform.info().encIdentifier == nil)
    }

    @Test func getInfoGivesItsHolderTheDeviceIdentifier() async throws {
        let (h, platform, _) = try await CM.populated(.two)
        #expect(
            try await platform.info().encIdentifier == nil, "nothing to encrypt to before a persistent token exists")
        let persistent = try await platform.grantedToken(pin: "1234", permissions: .pcmr)
        let key = persistent.key.withUnsafeBytes { Array($0) }
        let first = try #require(try await platform.info().encIdentifier)
        let second = try #require(try await platform.info().encIdentifier)
        #expect(first != second, "a fresh IV each time")
        let identifier = try PersistentTokenEncryption.decrypt(first, token: key, for: .encIdentifier)
        #expect(identifier.count == 16)
        #expect(try PersistentTokenEncryption.decrypt(second, token: key, for: .encIdentifier) == identifier)
        #expect(try await h.authenticator.deviceState().deviceIdentifier == identifier)
        // A new persistent token reads the same identifier.
        let renewed = try await platform.grantedToken(pin: "1234", permissions: .pcmr)
        let renewedKey = renewed.key.withUnsafeBytes { Array($0) }
        #expect(
            try PersistentTokenEncryption.decrypt(
                try #require(try await platform.info().encIdentifier), token: renewedKey, for: .encIdentifier)
                == identifier)
    }
}
