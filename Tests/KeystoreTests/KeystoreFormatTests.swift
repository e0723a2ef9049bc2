import Authenticator
import Crypto
import Foundation
import GRDB
import Testing

@testable import Keystore

/// Stores made by the release before format v2 (Fixtures/keystore, made by that release's
/// daemon: see generate.py there) still open, keep what they hold, and become v2.
@Suite struct KeystoreFormatTests {
    /// Copies a fixture into a fresh store folder with the modes the daemon gives it (git keeps no 0600).
    private func copyFixture(_ name: String, to temp: TemporaryDirectory, filePath: String = #filePath) throws {
        let fixture = URL(fileURLWithPath: filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/keystore/\(name)").path
        try FileManager.default.createDirectory(
            atPath: temp.store, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        for file in [Keystore.databaseFileName, Keystore.keyFileName] {
            try FileManager.default.copyItem(atPath: fixture + "/" + file, toPath: temp.store + "/" + file)
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: temp.store + "/" + file)
        }
    }

    /// The format the header's wrap was made for.
    private func format(_ temp: TemporaryDirectory) throws -> KeystoreFormat? {
        let header = try KeystoreInspection.header(of: temp.database)
        let key = try KeyFile.load(temp.keyFile, database: temp.database)
        return DataKey.unwrap(header.wrappedKey, under: key, storeID: header.storeID, protection: header.protection)?
            .format
    }

    private func deviceStateRows(_ temp: TemporaryDirectory) throws -> Int {
        let raw = try DatabaseQueue(path: temp.database)
        defer { try? raw.close() }
        return try raw.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM device_state") ?? -1 }
    }

    @Test func aV1StoreWithAPINOpensKeepsEverythingAndBecomesV2() async throws {
        let temp = TemporaryDirectory()
        defer { temp.remove() }
        try copyFixture("v1-pin", to: temp)
        #expect(try format(temp) == .v1)

        let store = try openStore(temp.store)
        let credentials = try await store.allCredentials()
        #expect(credentials.map(\.rp.id) == ["example.com"])
        #expect(credentials.map(\.user.id) == [Array("fixture".utf8)])
        #expect(try await store.count() == 1, "the count the triggers keep starts from the rows there")
        let state = try #require(try await store.loadDeviceState())
        // LEFT(SHA-256("12345678"), 16): CTAP 2.1 §6.5.5.5.
        #expect(state.pinHash == Array(SHA256.hash(data: Array("12345678".utf8)).prefix(16)))
        #expect(state.pinRetries == DeviceState.maxPINRetries)
        try await store.close()
        #expect(try format(temp) == .v2)

        // Now v2: deleting the row is tampering.
        let raw = try DatabaseQueue(path: temp.database)
        try await raw.write { try $0.execute(sql: "DELETE FROM device_state") }
        try raw.close()
        #expect(throws: KeystoreError.deviceStateMissing(database: temp.database)) { _ = try openStore(temp.store) }
    }

    @Test func anUnusedV1StoreGetsAFactoryFreshDeviceState() async throws {
        let temp = TemporaryDirectory()
        defer { temp.remove() }
        try copyFixture("v1-unused", to: temp)
        #expect(try format(temp) == .v1)
        #expect(try deviceStateRows(temp) == 0, "v1 wrote the row on first use")

        let store = try openStore(temp.store)
        let state = try #require(try await store.loadDeviceState())
        #expect(state.pinHash == nil)
        #expect(state.pinRetries == DeviceState.maxPINRetries)
        #expect(try await store.count() == 0)
        try await store.close()
        #expect(try format(temp) == .v2)
        #expect(try deviceStateRows(temp) == 1)
    }

    /// The upgrade is written into the main file (checkpointed), where the read-only inspection reads the header.
    @Test func theUpgradedHeaderIsInTheMainFileWhileTheStoreIsOpen() async throws {
        let temp = TemporaryDirectory()
        defer { temp.remove() }
        try copyFixture("v1-unused", to: temp)
        let store = try openStore(temp.store)
        #expect(try format(temp) == .v2)
        try await store.close()
    }

    /// A v2 store written before the extension fields (large blobs, largeBlobKey, credBlob,
    /// authenticatorConfig) existed opens with each at its "never set" value, keeps what it
    /// held, and then stores the new fields.
    @Test func aStoreFromBeforeTheExtensionFieldsOpensAndTakesThem() async throws {
        let temp = TemporaryDirectory()
        defer { temp.remove() }
        try copyFixture("v2-before-extensions", to: temp)
        #expect(try format(temp) == .v2)

        let store = try openStore(temp.store)
        let credential = try #require(try await store.allCredentials().first)
        #expect(credential.user.id == Array("fixture".utf8))
        #expect(try await store.count() == 1)
        #expect(credential.credProtect == 2)
        #expect(credential.hmacSecret == true)
        #expect(credential.largeBlobKey == nil)
        var state = try #require(try await store.loadDeviceState())
        #expect(state.pinHash == Array(SHA256.hash(data: Array("12345678".utf8)).prefix(16)))
        #expect(state.globalSignCount == 1)
        #expect(state.largeBlobArray == nil)

        state.largeBlobArray = [0x80, 1, 2, 3]
        try await store.saveDeviceState(state)
        var updated = credential
        updated.largeBlobKey = Array(repeating: 9, count: 32)
        try await store.save(updated)
        try await store.close()

        let reopened = try openStore(temp.store)
        #expect(try await reopened.loadDeviceState()?.largeBlobArray == [0x80, 1, 2, 3])
        #expect(try await reopened.allCredentials().first?.largeBlobKey == Array(repeating: 9, count: 32))
        try await reopened.close()
    }

    /// A store written before bio enrollment, the persistent token and enterprise attestation
    /// (Fixtures/keystore/generate_v2_before_bio.py) opens with none of them, its attestation
    /// authority without an enterprise certificate, and then stores them.
    @Test func aStoreFromBeforeBioEnrollmentOpensAndTakesItsFields() async throws {
        let temp = TemporaryDirectory()
        defer { temp.remove() }
        try copyFixture("v2-before-bio", to: temp)
        let store = try openStore(temp.store)
        #expect(try await store.allCredentials().map(\.user.id) == [Array("fixture".utf8)])
        var state = try #require(try await store.loadDeviceState())
        #expect(state.pinHash == Array(SHA256.hash(data: Array("12345678".utf8)).prefix(16)))
        #expect(state.fingerprints == nil && state.persistentToken == nil && state.enterpriseAttestation == nil)
        let authority = try #require(state.attestationAuthority)
        #expect(authority.enterpriseCertificate == nil && authority.enterpriseKey == nil)

        state.fingerprints = [EnrolledFingerprint(templateId: [1, 2, 3], friendlyName: "Left index")]
        state.persistentToken = PersistentPinUvAuthToken(key: Array(repeating: 7, count: 32), pinUvAuthProtocol: 2)
        try await store.saveDeviceState(state)
        try await store.close()

        let reopened = try openStore(temp.store)
        let saved = try #require(try await reopened.loadDeviceState())
        #expect(saved.fingerprints == [EnrolledFingerprint(templateId: [1, 2, 3], friendlyName: "Left index")])
        #expect(saved.persistentToken?.pinUvAuthProtocol == 2)
        #expect(saved.attestationAuthority == authority)
        try await reopened.close()
    }
}
