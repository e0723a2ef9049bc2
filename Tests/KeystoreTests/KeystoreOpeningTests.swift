import Authenticator
import Crypto
import Foundation
import GRDB
import Testing

@testable import Keystore

/// Creating, reopening, and refusing to open — without writing a byte — what cannot be unlocked.
@Suite struct KeystoreOpeningTests {
    @Test func createsPrivateDirectoryAndKeyFileAndReopensWithIt() async throws {
        let temp = TemporaryDirectory()
        defer { temp.remove() }
        let nested = temp.path + "/a/b/passkeyd"
        var store = try openStore(nested)
        let credential = makeCredential()
        try await store.save(credential)
        try await store.close()

        #expect(permissions(nested) == 0o700)
        #expect(permissions(nested + "/" + Keystore.keyFileName) == 0o600)
        #expect(permissions(nested + "/" + Keystore.databaseFileName) == 0o600)
        #expect(
            (try? FileManager.default.attributesOfItem(atPath: nested + "/" + Keystore.keyFileName)[.size] as? NSNumber)?
                .intValue == 32)
        #expect(!FileManager.default.fileExists(atPath: nested + "/" + Keystore.databaseFileName + ".creating"))

        store = try openStore(nested)
        #expect(try await store.allCredentials() == [credential])
        try await store.close()
    }

    @Test func passphraseStoreHasNoKeyFileAndReopensWithThePassphrase() async throws {
        let temp = TemporaryDirectory()
        defer { temp.remove() }
        var store = try openStore(temp.store, passphrase: "correct horse battery staple")
        let credential = makeCredential()
        try await store.save(credential)
        try await store.close()
        #expect(!FileManager.default.fileExists(atPath: temp.keyFile))

        store = try openStore(temp.store, passphrase: "correct horse battery staple")
        #expect(try await store.credential(id: credential.id) == credential)
        try await store.close()
    }

    @Test func publicOpenUsesTheDefaultScryptCost() async throws {
        let temp = TemporaryDirectory()
        defer { temp.remove() }
        let store = try Keystore.open(directory: temp.store, passphrase: "pass")
        try await store.close()
        let header = try KeystoreInspection.header(of: temp.database)
        guard case .passphrase(let parameters, let salt) = header.protection else {
            Issue.record("expected passphrase protection")
            return
        }
        #expect(parameters == .default)
        #expect(salt.count == 16)
    }

    /// Issue 33, F8: a store made at an older, lower scrypt cost is re-wrapped at the build's cost
    /// when its passphrase opens it; its credentials stay, and only its passphrase opens it after.
    @Test func aCheaperStoreIsRewrappedAtTheNewCostWhenItOpens() async throws {
        let temp = TemporaryDirectory()
        defer { temp.remove() }
        let stronger = ScryptParameters(logN: testScrypt.logN + 2, r: testScrypt.r, p: 1)
        var store = try openStore(temp.store, passphrase: "old cost")
        let credential = makeCredential()
        try await store.save(credential)
        try await store.close()
        let before = try KeystoreInspection.header(of: temp.database)

        store = try Keystore.open(
            directory: temp.store, passphrase: "old cost", capacity: Keystore.defaultCapacity, newStoreScrypt: stronger)
        #expect(try await store.credential(id: credential.id) == credential)
        try await store.close()
        let after = try KeystoreInspection.header(of: temp.database)
        guard case .passphrase(let parameters, let salt) = after.protection,
            case .passphrase(_, let oldSalt) = before.protection
        else {
            Issue.record("expected passphrase protection")
            return
        }
        #expect(parameters == stronger)
        #expect(salt != oldSalt && after.wrappedKey != before.wrappedKey)

        expectError(.wrongPassphrase(database: temp.database)) {
            _ = try Keystore.open(
                directory: temp.store, passphrase: "wrong", capacity: Keystore.defaultCapacity, newStoreScrypt: stronger
            )
        }
        // Opening at the cost it now has changes nothing; a cheaper build's open does not weaken it.
        for cost in [stronger, testScrypt] {
            store = try Keystore.open(
                directory: temp.store, passphrase: "old cost", capacity: Keystore.defaultCapacity, newStoreScrypt: cost)
            #expect(try await store.credential(id: credential.id) == credential)
            try await store.close()
            #expect(try KeystoreInspection.header(of: temp.database).wrappedKey == after.wrappedKey)
        }
    }

    /// A store with data, closed as a crash leaves it: its last commit still in the WAL, which
    /// the failed opens these tests attempt must leave as it is.
    private func storeLeftByACrash(_ temp: TemporaryDirectory, passphrase: String? = nil) async throws {
        let store = try openStore(temp.store, passphrase: passphrase)
        try await store.save(makeCredential())
        try await store.close()
        try leaveInWAL(temp.database) { db in try db.execute(sql: "UPDATE credential SET sealed = sealed") }
    }

    @Test func wrongPassphraseFailsAndWritesNothing() async throws {
        let temp = TemporaryDirectory()
        defer { temp.remove() }
        try await storeLeftByACrash(temp, passphrase: "right passphrase")
        let before = fileDigests(temp.path)
        #expect(before.keys.contains("store/keystore.sqlite-wal"))
        expectError(.wrongPassphrase(database: temp.database)) {
            _ = try openStore(temp.store, passphrase: "wrong passphrase")
        }
        expectError(.passphraseRequired(database: temp.database)) { _ = try openStore(temp.store) }
        #expect(fileDigests(temp.path) == before)
    }

    @Test func passphraseForAKeyFileStoreFailsAndWritesNothing() async throws {
        let temp = TemporaryDirectory()
        defer { temp.remove() }
        try await storeLeftByACrash(temp)
        let before = fileDigests(temp.path)
        expectError(.passphraseNotExpected(database: temp.database)) { _ = try openStore(temp.store, passphrase: "x") }
        #expect(fileDigests(temp.path) == before)
    }

    @Test func missingKeyFileFailsAndWritesNothing() async throws {
        let temp = TemporaryDirectory()
        defer { temp.remove() }
        try await storeLeftByACrash(temp)
        try FileManager.default.moveItem(atPath: temp.keyFile, toPath: temp.path + "/moved.key")
        let before = fileDigests(temp.path)
        expectError(.missingKeyFile(path: temp.keyFile, database: temp.database)) { _ = try openStore(temp.store) }
        #expect(fileDigests(temp.path) == before)
    }

    @Test func truncatedKeyFileFailsAndWritesNothing() async throws {
        let temp = TemporaryDirectory()
        defer { temp.remove() }
        try await storeLeftByACrash(temp)
        let key = try #require(FileManager.default.contents(atPath: temp.keyFile))
        try key.prefix(31).write(to: URL(fileURLWithPath: temp.keyFile))
        let before = fileDigests(temp.path)
        expectError(.keyFileWrongSize(path: temp.keyFile, size: 31)) { _ = try openStore(temp.store) }
        #expect(fileDigests(temp.path) == before)
    }

    @Test func anotherStoresKeyFileFailsAndWritesNothing() async throws {
        let temp = TemporaryDirectory()
        defer { temp.remove() }
        try await storeLeftByACrash(temp)
        let other = try openStore(temp.path + "/other")
        try await other.close()
        try FileManager.default.removeItem(atPath: temp.keyFile)
        try FileManager.default.copyItem(atPath: temp.path + "/other/" + Keystore.keyFileName, toPath: temp.keyFile)
        let before = fileDigests(temp.path)
        expectError(.keyFileMismatch(path: temp.keyFile, database: temp.database)) { _ = try openStore(temp.store) }
        #expect(fileDigests(temp.path) == before)
    }

    @Test(arguments: ForeignFile.allCases)
    func foreignFileIsRefusedAndLeftUntouched(_ kind: ForeignFile) throws {
        let temp = TemporaryDirectory()
        defer { temp.remove() }
        try FileManager.default.createDirectory(atPath: temp.store, withIntermediateDirectories: true)
        try kind.write(to: temp.database)
        let before = fileDigests(temp.path)
        expectError(.notAKeystore(path: temp.database)) { _ = try openStore(temp.store) }
        expectError(.notAKeystore(path: temp.database)) { _ = try openStore(temp.store, passphrase: "p") }
        #expect(fileDigests(temp.path) == before)
    }

    @Test func newerSchemaIsRefusedAndLeftUntouched() async throws {
        let temp = TemporaryDirectory()
        defer { temp.remove() }
        try await storeLeftByACrash(temp)
        let raw = try DatabaseQueue(path: temp.database)
        try await raw.write {
            try $0.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('v99-from-the-future')")
        }
        try raw.close()
        let before = fileDigests(temp.path)
        expectError(.schemaNewer(path: temp.database, unknownMigrations: ["v99-from-the-future"])) {
            _ = try openStore(temp.store)
        }
        #expect(fileDigests(temp.path) == before)
    }

    @Test func newerSchemaStillInTheWALIsRefused() async throws {
        let temp = TemporaryDirectory()
        defer { temp.remove() }
        try await storeLeftByACrash(temp)
        // Left in the WAL, where the immutable inspection cannot see it.
        try leaveInWAL(temp.database) { db in
            try db.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('v99-from-the-future')")
        }
        expectError(.schemaNewer(path: temp.database, unknownMigrations: ["v99-from-the-future"])) {
            _ = try openStore(temp.store)
        }
    }

    @Test func damagedHeaderIsRefusedAndLeftUntouched() async throws {
        let temp = TemporaryDirectory()
        defer { temp.remove() }
        try await storeLeftByACrash(temp)
        let raw = try DatabaseQueue(path: temp.database)
        try await raw.write { try $0.execute(sql: "DELETE FROM keystore_header") }
        try raw.close()
        let before = fileDigests(temp.path)
        expectError(.corruptHeader(path: temp.database, reason: .missingHeaderRow)) { _ = try openStore(temp.store) }
        #expect(fileDigests(temp.path) == before)
    }

    @Test func aWALWithoutItsDatabaseIsNotAdopted() async throws {
        let temp = TemporaryDirectory()
        defer { temp.remove() }
        try await storeLeftByACrash(temp)
        try FileManager.default.removeItem(atPath: temp.database)
        let before = fileDigests(temp.path)
        #expect(before.keys.contains("store/keystore.sqlite-wal"))
        expectError(.orphanedFile(path: temp.database + "-wal")) { _ = try openStore(temp.store) }
        #expect(fileDigests(temp.path) == before)
    }

    @Test func emptyPassphraseIsRefused() {
        let temp = TemporaryDirectory()
        defer { temp.remove() }
        expectError(.emptyPassphrase) { _ = try openStore(temp.store, passphrase: "") }
        #expect(!FileManager.default.fileExists(atPath: temp.database))
    }

    @Test func messagesNameTheFileAndNeverTheSecret() async throws {
        let sentinel = "hunter2-SENTINEL"
        let keyFileStore = TemporaryDirectory()
        let passphraseStore = TemporaryDirectory()
        defer {
            keyFileStore.remove()
            passphraseStore.remove()
        }
        try await openStore(keyFileStore.store).close()
        try await openStore(passphraseStore.store, passphrase: "the right one").close()
        // Keystore.open logs through its own Logger (no injection point), so only the errors are checked here.
        for (store, expected) in [
            (passphraseStore, KeystoreError.wrongPassphrase(database: passphraseStore.database)),
            (keyFileStore, KeystoreError.passphraseNotExpected(database: keyFileStore.database))
        ] {
            do {
                _ = try openStore(store.store, passphrase: sentinel)
                Issue.record("a wrong passphrase opened \(store.store)")
            } catch {
                #expect(error == expected)
                for text in [error.description, String(reflecting: error)] {
                    #expect(text.contains(store.database))
                    #expect(!text.contains("SENTINEL") && !text.contains("hunter2"), "\(text)")
                }
            }
        }
        #expect(
            KeystoreError.wrongPassphrase(database: passphraseStore.database).description.contains(
                "passphrase does not unlock"))
        #expect(
            KeystoreError.missingKeyFile(path: keyFileStore.keyFile, database: keyFileStore.database).description
                .contains(keyFileStore.keyFile))
    }
}

enum ForeignFile: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case sqliteRollback, sqliteWAL, random, empty, text
    /// Its tables only in the WAL: the main file alone reads as an empty database.
    case sqliteWALLeftByACrash

    var testDescription: String { rawValue }

    func write(to path: String) throws {
        switch self {
        case .sqliteWALLeftByACrash:
            try ForeignFile.sqliteWAL.write(to: path)
            try leaveInWAL(path) { db in
                try db.execute(sql: "CREATE TABLE more (body TEXT); INSERT INTO more VALUES ('hi')")
            }
        case .sqliteRollback, .sqliteWAL:
            let queue = try DatabaseQueue(path: path)
            try queue.writeWithoutTransaction { db in
                if self == .sqliteWAL { try db.execute(sql: "PRAGMA journal_mode = WAL") }
                try db.execute(sql: "CREATE TABLE notes (body TEXT); INSERT INTO notes VALUES ('hello')")
            }
            try queue.close()
        case .random:
            try Data((0..<8192).map { _ in UInt8.random(in: 0...255) }).write(to: URL(fileURLWithPath: path))
        case .empty:
            try Data().write(to: URL(fileURLWithPath: path))
        case .text:
            try Data("not a database\n".utf8).write(to: URL(fileURLWithPath: path))
        }
    }
}
