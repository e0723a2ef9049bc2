import Authenticator
import Foundation
import GRDB
import Testing

@testable import Keystore

/// The hardening issue's keystore findings: one keystore per folder (F2), device state that
/// cannot be deleted into a factory-fresh device (F3), secret files and folders only we can touch (F7).
@Suite struct KeystoreHardeningTests {
    /// Opens, expecting a refusal whose sentence contains every one of `parts`; nothing on disk may change.
    private func expectRefusal(_ temp: TemporaryDirectory, passphrase: String? = nil, saying parts: [String]) {
        let before = fileDigests(temp.path)
        do {
            _ = try openStore(temp.store, passphrase: passphrase)
            Issue.record("\(temp.store) opened; expected a refusal saying \(parts)")
        } catch {
            for part in parts { #expect(error.description.contains(part), "\(error.description)") }
        }
        #expect(fileDigests(temp.path) == before, "a refused open changed files")
    }

    // MARK: F2 — one keystore per folder

    @Test func aSecondOpenOfTheSameFolderIsRefusedWhileTheFirstHoldsIt() async throws {
        let temp = TemporaryDirectory()
        defer { temp.remove() }
        let first = try openStore(temp.store)
        try await first.save(makeCredential())
        expectRefusal(
            temp, saying: ["The keystore folder \(temp.store) is in use by another passkeyd (pid \(getpid()))"])
        expectRefusal(temp, passphrase: "any", saying: ["\(temp.store) is in use"])
        try await first.close()

        let again = try openStore(temp.store)
        #expect(try await again.count() == 1, "closing lets the folder go")
        try await again.close()
    }

    /// The open store keeps its file locked (`locking_mode = EXCLUSIVE`): another connection
    /// can neither read nor write it, and no `-shm` file is made; once closed, it can.
    @Test func noOtherConnectionReadsTheFileWhileTheStoreHasItOpen() async throws {
        let temp = TemporaryDirectory()
        defer { temp.remove() }
        let store = try openStore(temp.store)
        try await store.save(makeCredential())
        try await store.durable()
        #expect(!FileManager.default.fileExists(atPath: temp.database + "-shm"))
        let count = { () async throws -> Int? in
            let other = try DatabaseQueue(path: temp.database)
            defer { try? other.close() }
            return try await other.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM credential") }
        }
        do {
            _ = try await count()
            Issue.record("read the keystore beside the open store")
        } catch let error as DatabaseError {
            #expect(error.resultCode == .SQLITE_BUSY)
        }
        try await store.close()
        #expect(try await count() == 1)
    }

    @Test func aFileIsNeverMovedOverOneAlreadyThere() throws {
        let temp = TemporaryDirectory()
        defer { temp.remove() }
        let (new, existing) = (temp.path + "/new", temp.path + "/existing")
        try Data("new".utf8).write(to: URL(fileURLWithPath: new))
        try Data("existing".utf8).write(to: URL(fileURLWithPath: existing))
        do {
            try KeystoreLayout.move(new, to: existing)
            Issue.record("moved \(new) over \(existing)")
        } catch {
            #expect(error.description == "Could not create \(existing): File exists.")
        }
        #expect(FileManager.default.contents(atPath: existing) == Data("existing".utf8))
    }

    /// Read-modify-write in one transaction: concurrent changes all land, none overwrites another.
    @Test func deviceStateUpdatesAreNeverLost() async throws {
        let temp = TemporaryDirectory()
        defer { temp.remove() }
        let store = try openStore(temp.store)
        // Two fields changed by interleaved updates: a whole-state write of stale data would lose some.
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<50 {
                group.addTask { try await store.updateDeviceState { state in state?.globalSignCount += 1 } }
                group.addTask { try await store.updateDeviceState { state in state?.minPINLength += 1 } }
            }
            try await group.waitForAll()
        }
        try await store.close()
        let reopened = try openStore(temp.store)
        let state = try #require(try await reopened.loadDeviceState())
        #expect(state.globalSignCount == 50)
        #expect(state.minPINLength == 4 + 50)
        try await reopened.close()
    }

    // MARK: F3 — device state is written at creation; its absence is tampering

    @Test func aNewKeystoreHoldsAFactoryFreshDeviceState() async throws {
        let temp = TemporaryDirectory()
        defer { temp.remove() }
        let store = try openStore(temp.store)
        let state = try #require(try await store.loadDeviceState())
        #expect(state.pinHash == nil)
        #expect(state.pinRetries == DeviceState.maxPINRetries)
        #expect(state.wrappingKey.count == 32)
        try await store.close()
    }

    private func storeWithPIN(_ temp: TemporaryDirectory) async throws -> DeviceState {
        let store = try openStore(temp.store)
        try await store.save(makeCredential())
        var state = DeviceState(wrappingKey: Array(0..<32))
        state.pinHash = Array(repeating: 0xAB, count: 16)
        state.pinRetries = 3
        state.globalSignCount = 41
        try await store.saveDeviceState(state)
        try await store.close()
        return state
    }

    @Test func aDeletedDeviceStateRowIsRefusedAndNothingChanges() async throws {
        let temp = TemporaryDirectory()
        defer { temp.remove() }
        _ = try await storeWithPIN(temp)
        let raw = try DatabaseQueue(path: temp.database)
        try await raw.write { try $0.execute(sql: "DELETE FROM device_state") }
        try raw.close()
        expectRefusal(
            temp, saying: ["The device state (PIN and retry counters) of the keystore \(temp.database) is missing"])
    }

    @Test func aDeviceStateRowDeletedOnlyInTheWALIsRefused() async throws {
        let temp = TemporaryDirectory()
        defer { temp.remove() }
        _ = try await storeWithPIN(temp)
        // Left in the WAL, where the read-only inspection cannot see it.
        try leaveInWAL(temp.database) { db in try db.execute(sql: "DELETE FROM device_state") }
        do {
            _ = try openStore(temp.store)
            Issue.record("opened without its device state")
        } catch {
            #expect(
                error.description.contains(
                    "device state (PIN and retry counters) of the keystore \(temp.database) is missing"))
        }
    }

    @Test func aResetLeavesAFactoryFreshDeviceStateThatReopens() async throws {
        let temp = TemporaryDirectory()
        defer { temp.remove() }
        let old = try await storeWithPIN(temp)
        var store = try openStore(temp.store)
        try await store.deleteAll()
        try await store.close()
        store = try openStore(temp.store)
        let state = try #require(try await store.loadDeviceState())
        #expect(state.pinHash == nil)
        #expect(state.pinRetries == DeviceState.maxPINRetries)
        #expect(state.wrappingKey != old.wrappingKey, "a reset replaces the wrapping key")
        #expect(try await store.count() == 0)
        try await store.close()
    }

    // MARK: F7 — secret files and the folder are ours alone

    @Test(arguments: [0o640, 0o604, 0o620, 0o602])
    func aKeyFileOthersCanReachIsRefused(_ mode: Int) async throws {
        let temp = TemporaryDirectory()
        defer { temp.remove() }
        try await openStore(temp.store).close()
        try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: temp.keyFile)
        let octal = "0" + String(mode, radix: 8)
        expectRefusal(
            temp,
            saying: [
                "The key file \(temp.keyFile) is accessible by other users (mode \(octal)), so it was not used.",
                "chmod 600 \(temp.keyFile)"
            ])
    }

    @Test(arguments: [0o770, 0o707, 0o777])
    func aFolderOthersCanWriteIsRefused(_ mode: Int) async throws {
        let temp = TemporaryDirectory()
        defer { temp.remove() }
        try await openStore(temp.store).close()
        try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: temp.store)
        let octal = "0" + String(mode, radix: 8)
        expectRefusal(
            temp,
            saying: [
                "The keystore folder \(temp.store) is writable by other users (mode \(octal))",
                "chmod 700 \(temp.store)"
            ])
    }

    @Test func aNewKeystoreIsNotMadeInAFolderOthersCanWrite() throws {
        let temp = TemporaryDirectory()
        defer { temp.remove() }
        try FileManager.default.createDirectory(atPath: temp.store, withIntermediateDirectories: false)
        try FileManager.default.setAttributes([.posixPermissions: 0o775], ofItemAtPath: temp.store)
        expectRefusal(temp, saying: ["\(temp.store) is writable by other users (mode 0775)"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: temp.store).isEmpty)
    }

    /// A folder only readable by others gives nothing away (every file in it is 0600): accepted, as ssh does.
    @Test func aFolderOthersCanOnlyReadIsAccepted() async throws {
        let temp = TemporaryDirectory()
        defer { temp.remove() }
        try await openStore(temp.store).close()
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: temp.store)
        try await openStore(temp.store).close()
    }
}
