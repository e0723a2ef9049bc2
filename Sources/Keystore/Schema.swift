import GRDB

/// The keystore's SQLite schema and its migrations. A migration, once released,
/// is never edited: changes are new migrations appended to `migrator`.
enum Schema {
    /// `PRAGMA application_id` of every keystore ("PKYD"): how a foreign SQLite file is
    /// told apart from a keystore before any key is tried.
    static let applicationID: Int32 = 0x504B_5944

    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            // One row: how the data key is wrapped, and the wrapped data key.
            try db.execute(
                sql: """
                    CREATE TABLE keystore_header (
                        id INTEGER PRIMARY KEY CHECK (id = 1),
                        storeID BLOB NOT NULL,
                        protection TEXT NOT NULL,
                        scryptSalt BLOB,
                        scryptLogN INTEGER,
                        scryptR INTEGER,
                        scryptP INTEGER,
                        wrappedKey BLOB NOT NULL
                    )
                    """)
            // `seq` is the rowid: a new row always gets more than every row present,
            // which gives newest-first order without trusting clocks.
            try db.execute(
                sql: """
                    CREATE TABLE credential (
                        seq INTEGER PRIMARY KEY,
                        credentialIDHash BLOB NOT NULL UNIQUE,
                        rpIDHash BLOB NOT NULL,
                        userHandleHash BLOB NOT NULL,
                        sealed BLOB NOT NULL
                    )
                    """)
            // Serves credentials(rpID:) in order, and makes (RP, user) unique.
            try db.execute(sql: "CREATE UNIQUE INDEX credential_by_rp ON credential (rpIDHash, userHandleHash)")
            try db.execute(sql: "CREATE INDEX credential_by_rp_seq ON credential (rpIDHash, seq)")
            try db.execute(
                sql: """
                    CREATE TABLE device_state (
                        id INTEGER PRIMARY KEY CHECK (id = 1),
                        sealed BLOB NOT NULL
                    )
                    """)
        }
        // The number of credentials, kept by triggers in the same transaction as each insert
        // and delete: getInfo reports the room left, and a save checks the capacity, without
        // counting a million rows (tens of ms, most of the daemon's time to readiness on such a store).
        migrator.registerMigration("v2-credential-count") { db in
            try db.execute(
                sql: "CREATE TABLE credential_count (id INTEGER PRIMARY KEY CHECK (id = 1), count INTEGER NOT NULL)")
            try db.execute(sql: "INSERT INTO credential_count (id, count) SELECT 1, count(*) FROM credential")
            try db.execute(
                sql: """
                    CREATE TRIGGER credential_counted AFTER INSERT ON credential
                    BEGIN UPDATE credential_count SET count = count + 1; END
                    """)
            try db.execute(
                sql: """
                    CREATE TRIGGER credential_uncounted AFTER DELETE ON credential
                    BEGIN UPDATE credential_count SET count = count - 1; END
                    """)
        }
        // Changes no table: credential records are now sealed with their row's three hashes
        // as associated data (`RecordSealer.credentialContext`), which an older build could
        // not open; marked here so that one refuses the store as newer (`schemaNewer`) instead
        // of taking every new record for a forgery.
        migrator.registerMigration("v3-credential-row-bound") { _ in }
        // The record log beside the index (`RecordLog`): `applied` is the number of the last
        // commit, which replay continues from. An older build, which would not replay the log,
        // refuses the store as newer.
        migrator.registerMigration("v4-record-log") { db in
            try db.execute(
                sql: "CREATE TABLE record_log (id INTEGER PRIMARY KEY CHECK (id = 1), applied INTEGER NOT NULL)")
            try db.execute(sql: "INSERT INTO record_log (id, applied) VALUES (1, 0)")
        }
        return migrator
    }

    /// Refuses a database that a newer release has migrated: this one cannot know
    /// what its unknown migrations changed, so it must neither read nor write it.
    static func refuseNewer(_ db: Database, path: String) throws {
        let migrator = migrator
        guard try migrator.hasBeenSuperseded(db) else { return }
        let unknown = try migrator.appliedIdentifiers(db).subtracting(migrator.migrations).sorted()
        throw KeystoreError.schemaNewer(path: path, unknownMigrations: unknown)
    }
}
