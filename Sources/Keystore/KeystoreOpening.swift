import Crypto
import Foundation
import GRDB
import Logging

extension Keystore {
    /// Opens the keystore in `directory`, creating the directory (mode 0700) and a new
    /// keystore when it holds no database yet.
    ///
    /// An existing keystore is first inspected read-only through SQLite's `immutable`
    /// mode, which touches neither the database nor its `-wal`/`-shm` files; nothing is
    /// written until the data key has been unwrapped (its GCM tag is the check value)
    /// and the schema is known. So a wrong passphrase, a missing key file or a foreign
    /// file leaves every file byte-for-byte as it was.
    ///
    /// - Parameters:
    ///   - passphrase: nil for key-file protection (`keystore.key`, created with a new
    ///     keystore); otherwise the passphrase, whose scrypt-derived key wraps the data key.
    ///     Its exact UTF-8 bytes are used: callers strip a passphrase file's trailing newline.
    public static func open(
        directory: String, passphrase: String? = nil, capacity: Int = defaultCapacity
    ) throws(KeystoreError) -> Keystore {
        try open(directory: directory, passphrase: passphrase, capacity: capacity, newStoreScrypt: .default)
    }

    /// `newStoreScrypt` sets the cost of a keystore created by this call (tests use a cheap one).
    static func open(
        directory: String, passphrase: String?, capacity: Int, newStoreScrypt: ScryptParameters
    ) throws(KeystoreError) -> Keystore {
        if passphrase?.isEmpty == true { throw .emptyPassphrase }
        let layout = KeystoreLayout(directory: directory)
        try layout.ensureDirectory()
        guard KeystoreLayout.exists(layout.database) else {
            // SQLite would replay a leftover WAL into the new database.
            for suffix in ["-wal", "-shm"] where KeystoreLayout.exists(layout.database + suffix) {
                throw .orphanedFile(path: layout.database + suffix)
            }
            return try create(layout, passphrase: passphrase, capacity: capacity, scrypt: newStoreScrypt)
        }
        let header = try KeystoreInspection.header(of: layout.database)
        let keyEncryptionKey: SymmetricKey
        switch (header.protection, passphrase) {
        case (.keyFile, nil):
            keyEncryptionKey = try KeyFile.load(layout.keyFile, database: layout.database)
        case (.keyFile, .some):
            throw .passphraseNotExpected(database: layout.database)
        case (.passphrase, nil):
            throw .passphraseRequired(database: layout.database)
        case (.passphrase(let parameters, let salt), let passphrase?):
            do { keyEncryptionKey = try parameters.deriveKey(passphrase: passphrase, salt: salt) }
            catch { throw .corruptHeader(path: layout.database, reason: .invalidScryptParameters) }
        }
        guard let dataKey = DataKey.unwrap(
            header.wrappedKey, under: keyEncryptionKey, storeID: header.storeID, protection: header.protection)
        else {
            if case .keyFile = header.protection {
                throw .keyFileMismatch(path: layout.keyFile, database: layout.database)
            }
            throw .wrongPassphrase(database: layout.database)
        }
        let queue = try writableQueue(layout.database)
        logger.info("opened keystore", metadata: ["path": "\(layout.database)", "protection": "\(header.protection.name)"])
        return Keystore(
            queue: queue, sealer: RecordSealer(dataKey: dataKey, storeID: header.storeID, path: layout.database),
            path: layout.database, capacity: capacity)
    }

    static let logger = Logger(label: "passkeyd.keystore")

    /// Builds a new keystore under a temporary name and renames it into place, so a
    /// crash during creation never leaves a half-made database behind. A key file left
    /// by such a crash is reused rather than replaced.
    private static func create(
        _ layout: KeystoreLayout, passphrase: String?, capacity: Int, scrypt: ScryptParameters
    ) throws(KeystoreError) -> Keystore {
        let storeID = [UInt8](SymmetricKey(size: .bits128).withUnsafeBytes { Array($0) })
        let protection: KeyProtection
        let keyEncryptionKey: SymmetricKey
        if let passphrase {
            let salt = [UInt8](SymmetricKey(size: .bits128).withUnsafeBytes { Array($0) })
            protection = .passphrase(scrypt, salt: salt)
            do { keyEncryptionKey = try scrypt.deriveKey(passphrase: passphrase, salt: salt) }
            catch { throw .corruptHeader(path: layout.database, reason: .invalidScryptParameters) }
        } else {
            protection = .keyFile
            keyEncryptionKey = KeystoreLayout.exists(layout.keyFile)
                ? try KeyFile.load(layout.keyFile, database: layout.database)
                : try KeyFile.create(in: layout)
        }
        let dataKey = DataKey.generate()
        let temporary = layout.databaseUnderConstruction
        do {
            let header = KeystoreHeader(
                storeID: storeID, protection: protection,
                wrappedKey: try dataKey.wrapped(under: keyEncryptionKey, storeID: storeID, protection: protection))
            for suffix in ["", "-journal", "-wal", "-shm"] { try KeystoreLayout.remove(temporary + suffix) }
            // SQLite would create the file with the umask's mode; its -wal and -shm copy the database's.
            try KeystoreLayout.createEmptyPrivateFile(temporary)
            let queue = try writableQueue(temporary)
            try queue.write { db in
                try db.execute(sql: "PRAGMA application_id = \(Schema.applicationID)")
                try header.insert(db)
            }
            try queue.close()
            try KeystoreLayout.move(temporary, to: layout.database)
            try layout.syncDirectory()
        } catch {
            try? KeystoreLayout.remove(temporary)
            throw keystoreError(error, path: temporary)
        }
        logger.info("created keystore", metadata: ["path": "\(layout.database)", "protection": "\(protection.name)"])
        return Keystore(
            queue: try writableQueue(layout.database),
            sealer: RecordSealer(dataKey: dataKey, storeID: storeID, path: layout.database),
            path: layout.database, capacity: capacity)
    }

    /// The connection used once the key is verified: WAL, `synchronous = FULL` (each
    /// commit fsyncs the WAL, so a returned call survives power loss, not only a crash),
    /// `secure_delete` (freed pages are zeroed); then a newer schema is refused and pending migrations run.
    private static func writableQueue(_ path: String) throws(KeystoreError) -> DatabaseQueue {
        var configuration = Configuration()
        configuration.label = "passkeyd.keystore"
        configuration.prepareDatabase { db in
            guard try String.fetchOne(db, sql: "PRAGMA journal_mode = WAL") == "wal" else {
                throw DatabaseError(resultCode: .SQLITE_CANTOPEN, message: "the database cannot use write-ahead logging")
            }
            try db.execute(sql: "PRAGMA synchronous = FULL")
            try db.execute(sql: "PRAGMA secure_delete = ON")
        }
        do {
            let queue = try DatabaseQueue(path: path, configuration: configuration)
            // The read-only inspection cannot see the WAL, where a newer release's
            // migration may still sit; this connection does.
            do { try queue.read { db in try Schema.refuseNewer(db, path: path) } }
            catch { try? queue.close(); throw error }
            try Schema.migrator.migrate(queue)
            return queue
        } catch {
            throw keystoreError(error, path: path)
        }
    }
}
