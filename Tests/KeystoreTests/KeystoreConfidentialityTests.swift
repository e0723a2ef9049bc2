import Authenticator
import CTAP
import Foundation
import GRDB
import Testing

@testable import Keystore

/// What the file reveals (nothing readable), what tampering does (fails loudly), and
/// that lookups stay indexed.
@Suite struct KeystoreConfidentialityTests {
    @Test func filesHoldNoRPIDUserNameDisplayNameOrKey() async throws {
        let temp = TemporaryDirectory()
        defer { temp.remove() }
        let store = try openStore(temp.store)
        let credential = makeCredential(
            rp: "secret-rp.example", userHandle: Array("user-handle-0042".utf8),
            name: "grace.hopper@secret-rp.example", displayName: "Grace Brewster Hopper")
        try await store.save(credential)
        try await store.saveDeviceState(DeviceState(wrappingKey: Array("wrapping-key-bytes-0123456789abc".utf8)))
        let needles: [[UInt8]] = [
            Array("secret-rp".utf8), Array("grace.hopper".utf8), Array("Grace Brewster".utf8),
            Array("user-handle-0042".utf8), credential.privateKey, credential.id, Array("wrapping-key-bytes".utf8)
        ]
        // While open, the newest writes live in the WAL; after close, in the main file.
        for path in [temp.database, temp.database + "-wal"] {
            #expect(FileManager.default.fileExists(atPath: path))
            for needle in needles { #expect(!file(path, contains: needle), "\(path) holds a secret") }
        }
        try await store.close()
        for needle in needles { #expect(!file(temp.database, contains: needle)) }
        // The test would be void if the probe could not find anything.
        #expect(file(temp.database, contains: Array("keystore_header".utf8)))
    }

    @Test func aFlippedByteInASealedRecordFailsAuthentication() async throws {
        let temp = TemporaryDirectory()
        defer { temp.remove() }
        var store = try openStore(temp.store)
        let victim = makeCredential(rp: "example.com", userHandle: [1])
        let bystander = makeCredential(rp: "example.org", userHandle: [2])
        try await store.save(victim)
        try await store.save(bystander)
        try await store.close()

        let raw = try DatabaseQueue(path: temp.database)
        try await raw.write { db in
            // The victim is the older row; flip one ciphertext byte past the nonce.
            let seq = try Int.fetchOne(db, sql: "SELECT min(seq) FROM credential")
            var sealed = try #require(
                try Data.fetchOne(db, sql: "SELECT sealed FROM credential WHERE seq = ?", arguments: [seq]))
            sealed[sealed.startIndex + 20] ^= 0x01
            try db.execute(sql: "UPDATE credential SET sealed = ? WHERE seq = ?", arguments: [sealed, seq])
        }
        try raw.close()

        store = try openStore(temp.store)
        #expect(
            await StoreOutcome { _ = try await store.credential(id: victim.id) }
                == .failed(.recordAuthenticationFailed(path: temp.database)))
        #expect(
            await StoreOutcome { _ = try await store.credentials(rpID: "example.com") }
                == .failed(.recordAuthenticationFailed(path: temp.database)))
        #expect(
            await StoreOutcome { _ = try await store.allCredentials() }
                == .failed(.recordAuthenticationFailed(path: temp.database)))
        #expect(try await store.credential(id: bystander.id) == bystander)
        try await store.close()
    }

    @Test func aRecordMovedToAnotherRPsRowFailsAuthentication() async throws {
        let temp = TemporaryDirectory()
        defer { temp.remove() }
        var store = try openStore(temp.store)
        let victim = makeCredential(rp: "bank.example", userHandle: [1])
        let attacker = makeCredential(rp: "evil.example", userHandle: [2])
        try await store.save(victim)
        try await store.save(attacker)
        try await store.close()

        // Relabel the victim's row as evil.example's, hashes and all but the seal.
        let raw = try DatabaseQueue(path: temp.database)
        try await raw.write { db in
            try db.execute(
                sql: """
                    UPDATE credential SET rpIDHash = (SELECT rpIDHash FROM credential WHERE seq = (SELECT max(seq) FROM credential)),
                        userHandleHash = x'00'
                    WHERE seq = (SELECT min(seq) FROM credential)
                    """)
        }
        try raw.close()

        store = try openStore(temp.store)
        #expect(
            await StoreOutcome { _ = try await store.credentials(rpID: "evil.example") }
                == .failed(.recordAuthenticationFailed(path: temp.database)))
        try await store.close()
    }

    /// Found by FuzzKeystore (docs/fuzzing.md): one flipped byte in a record header made a blob
    /// NULL, and reading the row trapped. NOT NULL binds writers only, so a damaged file can do it.
    @Test func aRowWithANullBlobFailsAuthentication() async throws {
        for column in ["credentialIDHash", "rpIDHash", "userHandleHash", "sealed"] {
            for value in ["NULL", "-23290"] {
                let temp = TemporaryDirectory()
                defer { temp.remove() }
                try await storeOneCredentialAndDamageItsTable(
                    temp, replacing: "\(column) BLOB NOT NULL", with: "\(column) BLOB")
                let nulling = try DatabaseQueue(path: temp.database)
                try await nulling.write { db in try db.execute(sql: "UPDATE credential SET \(column) = \(value)") }
                try nulling.close()

                let store = try openStore(temp.store)
                #expect(
                    await StoreOutcome { _ = try await store.allCredentials() }
                        == .failed(.recordAuthenticationFailed(path: temp.database)), "\(value) in \(column)")
                // A NULL RP hash matches no RP's lookup; every other column is read for this RP.
                if column != "rpIDHash" {
                    #expect(
                        await StoreOutcome { _ = try await store.credentials(rpID: "example.com") }
                            == .failed(.recordAuthenticationFailed(path: temp.database)), "\(value) in \(column)")
                }
                try await store.close()
            }
        }
    }

    /// Found by FuzzKeystore in CI: a flipped byte in the schema renamed `credentialIDHash`,
    /// and reading a row by its column name trapped in GRDB. Now that row is refused.
    @Test func aRenamedColumnFailsAuthenticationInsteadOfTrapping() async throws {
        // Not the indexed RP and user columns: an index naming a missing column fails the open.
        for column in ["credentialIDHash", "sealed"] {
            let temp = TemporaryDirectory()
            defer { temp.remove() }
            try await storeOneCredentialAndDamageItsTable(
                temp, replacing: "\(column) BLOB", with: "x\(column.dropFirst()) BLOB")

            let store = try openStore(temp.store)
            #expect(
                await StoreOutcome { _ = try await store.allCredentials() }
                    == .failed(.recordAuthenticationFailed(path: temp.database)), "\(column) renamed")
            try await store.close()
        }
    }

    /// A store holding one credential, whose `credential` table's SQL then has `old` replaced by
    /// `new`, as a damaged byte in the schema would (SQLite reads the schema from that text).
    private func storeOneCredentialAndDamageItsTable(
        _ temp: TemporaryDirectory, replacing old: String, with new: String
    ) async throws {
        let store = try openStore(temp.store)
        try await store.save(makeCredential(rp: "example.com", userHandle: [1]))
        try await store.close()
        let raw = try DatabaseQueue(path: temp.database)
        try await raw.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA writable_schema = ON")
            try db.execute(
                sql: "UPDATE sqlite_schema SET sql = replace(sql, ?, ?) WHERE name = 'credential'",
                arguments: [old, new])
        }
        try raw.close()
    }

    @Test func aTamperedDeviceStateFailsAuthentication() async throws {
        let temp = TemporaryDirectory()
        defer { temp.remove() }
        var store = try openStore(temp.store)
        try await store.saveDeviceState(DeviceState(wrappingKey: Array(repeating: 1, count: 32)))
        try await store.close()
        let raw = try DatabaseQueue(path: temp.database)
        try await raw.write { db in
            // Flip one bit of the tag: a changed byte, whatever it was before.
            var sealed = try #require(try Data.fetchOne(db, sql: "SELECT sealed FROM device_state"))
            sealed[sealed.endIndex - 1] ^= 0x01
            try db.execute(sql: "UPDATE device_state SET sealed = ?", arguments: [sealed])
        }
        try raw.close()
        store = try openStore(temp.store)
        #expect(
            await StoreOutcome { _ = try await store.loadDeviceState() }
                == .failed(.recordAuthenticationFailed(path: temp.database)))
        try await store.close()
    }

    @Test func lookupsBySearchingAnIndexNotByScanning() async throws {
        let temp = TemporaryDirectory()
        defer { temp.remove() }
        let store = try openStore(temp.store)
        try await store.save(makeCredential())
        try await store.close()

        let raw = try DatabaseQueue(path: temp.database)
        defer { try? raw.close() }
        for (query, index) in [
            (Keystore.credentialsByRPQuery, "credential_by_rp_seq"),
            (Keystore.credentialByIDQuery, "sqlite_autoindex_credential_1")
        ] {
            let plan = try await raw.read { db in
                try Row.fetchAll(
                    db, sql: "EXPLAIN QUERY PLAN " + query,
                    arguments: StatementArguments(
                        Array(repeating: Data(count: 32), count: query.filter { $0 == "?" }.count))
                )
                .map { $0["detail"] as String }
            }
            #expect(plan.count == 1, "\(plan)")
            #expect(plan.allSatisfy { $0.hasPrefix("SEARCH credential USING INDEX \(index)") }, "\(plan)")
            #expect(!plan.contains { $0.contains("TEMP B-TREE") }, "sorted by the index, not afterwards: \(plan)")
        }
    }
}
