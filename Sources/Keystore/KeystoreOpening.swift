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
    /// Before any of that the directory is locked (`KeystoreLock`): while this keystore is
    /// open, every other open of the directory is refused (`inUse`). Refused as well, also
    /// without writing: a directory others can write to (`exposedDirectory`), a key file
    /// others can read or write (`exposedFile`), and a store whose device state is missing
    /// although its format writes it at creation (`deviceStateMissing`).
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

    /// `newStoreScrypt` sets the cost of a keystore created by this call (tests use a cheap one);
    /// `off`, the speed mechanisms it runs without (tests run each off).
    static func open(
        directory: String, passphrase: String?, capacity: Int, newStoreScrypt: ScryptParameters,
        off: SpeedMechanisms = .turnedOffByEnvironment
    ) throws(KeystoreError) -> Keystore {
        if passphrase?.isEmpty == true { throw .emptyPassphrase }
        let layout = KeystoreLayout(directory: directory)
        try layout.ensureDirectory()
        try layout.refuseReadOnly()
        // Before anything in the directory is looked at: another daemon may be creating or using it.
        let lock = try KeystoreLock.acquire(layout.directory)
        guard KeystoreLayout.exists(layout.database) else {
            // SQLite would replay a leftover WAL into the new database, and the keystore a leftover log.
            for orphan in ["-wal", "-shm"].map({ layout.database + $0 }) + [layout.recordLog]
            where KeystoreLayout.exists(orphan) {
                throw .orphanedFile(path: orphan)
            }
            return try create(
                layout, lock: lock, passphrase: passphrase, capacity: capacity, scrypt: newStoreScrypt, off: off)
        }
        let findings = try KeystoreInspection.inspect(layout.database)
        let header = findings.header
        let keyEncryptionKey: SymmetricKey
        switch (header.protection, passphrase) {
        case (.keyFile, nil):
            keyEncryptionKey = try KeyFile.load(layout.keyFile, database: layout.database)
        case (.keyFile, .some):
            throw .passphraseNotExpected(database: layout.database)
        case (.passphrase, nil):
            throw .passphraseRequired(database: layout.database)
        case (.passphrase(let parameters, let salt), let passphrase?):
            do { keyEncryptionKey = try parameters.deriveKey(passphrase: passphrase, salt: salt) } catch {
                throw .corruptHeader(path: layout.database, reason: .invalidScryptParameters)
            }
        }
        guard
            let unwrapped = DataKey.unwrap(
                header.wrappedKey, under: keyEncryptionKey, storeID: header.storeID, protection: header.protection)
        else {
            if case .keyFile = header.protection {
                throw .keyFileMismatch(path: layout.keyFile, database: layout.database)
            }
            throw .wrongPassphrase(database: layout.database)
        }
        let (dataKey, format) = unwrapped
        // Refused here, before the writable connection replays the WAL: nothing is written.
        if format == .v2 && !findings.hasDeviceState { throw .deviceStateMissing(database: layout.database) }
        let sealer = RecordSealer(dataKey: dataKey, storeID: header.storeID, path: layout.database)
        let queue = try writableQueue(layout.database)
        do {
            switch format {
            case .v2:
                // The WAL, which the inspection cannot see, may have deleted the row.
                guard try queue.read({ db in try hasDeviceState(db) }) else {
                    throw KeystoreError.deviceStateMissing(database: layout.database)
                }
            case .v1:
                try upgrade(queue, from: header, dataKey: dataKey, keyEncryptionKey: keyEncryptionKey, sealer: sealer)
            }
            if case .passphrase(let stored, _) = header.protection, let passphrase,
                stored.costsLess(than: newStoreScrypt)
            {
                try strengthen(queue, header: header, dataKey: dataKey, passphrase: passphrase, to: newStoreScrypt)
            }
        } catch {
            try? queue.close()
            throw keystoreError(error, path: layout.database)
        }
        let log: RecordLog.Found
        do { log = try RecordLog.open(directory: layout) } catch {
            try? queue.close()
            throw error
        }
        logger.info(
            "opened keystore", metadata: ["path": "\(layout.database)", "protection": "\(header.protection.name)"])
        return try Keystore(
            queue: queue, lock: lock, sealer: sealer, path: layout.database, capacity: capacity, log: log, off: off)
    }

    /// A `v1` store becomes `v2` in one transaction: a factory-fresh device state where none
    /// was made yet (the store was never used), and the data key rewrapped for `v2`. The
    /// checkpoint puts the new header into the main file, where the read-only inspection
    /// reads it; until then (a crash in between) the old header still opens and upgrades again.
    private static func upgrade(
        _ queue: DatabaseQueue, from header: KeystoreHeader, dataKey: DataKey, keyEncryptionKey: SymmetricKey,
        sealer: RecordSealer
    ) throws {
        let wrapped = try dataKey.wrapped(
            under: keyEncryptionKey, storeID: header.storeID, protection: header.protection, format: .v2)
        let fresh = try sealer.seal(factoryFreshDeviceState())
        try queue.write { db in
            if try !hasDeviceState(db) { try storeDeviceState(fresh, db) }
            try db.execute(sql: "UPDATE keystore_header SET wrappedKey = ? WHERE id = 1", arguments: [wrapped])
        }
        try queue.writeWithoutTransaction { db in _ = try db.checkpoint(.truncate) }
    }

    /// A store made at a lower scrypt cost than this build's is re-wrapped at the new cost
    /// while the passphrase is in hand, the one moment it is (the daemon drops it after the
    /// open): a new salt and parameters, the same data key, in one transaction, checkpointed
    /// into the main file as `upgrade` is. A crash in between leaves the old header, which
    /// still opens and is strengthened again.
    private static func strengthen(
        _ queue: DatabaseQueue, header: KeystoreHeader, dataKey: DataKey, passphrase: String,
        to parameters: ScryptParameters
    ) throws {
        let salt = [UInt8](SymmetricKey(size: .bits128).withUnsafeBytes { Array($0) })
        let protection = KeyProtection.passphrase(parameters, salt: salt)
        let wrapped = try dataKey.wrapped(
            under: try parameters.deriveKey(passphrase: passphrase, salt: salt), storeID: header.storeID,
            protection: protection)
        try queue.write { db in
            try db.execute(
                sql:
                    "UPDATE keystore_header SET scryptSalt = ?, scryptLogN = ?, scryptR = ?, scryptP = ?, wrappedKey = ? WHERE id = 1",
                arguments: [Data(salt), parameters.logN, parameters.r, parameters.p, wrapped])
        }
        try queue.writeWithoutTransaction { db in _ = try db.checkpoint(.truncate) }
        logger.notice(
            "keystore passphrase re-wrapped at this build's scrypt cost",
            metadata: [
                "scryptLogN": "\(parameters.logN)", "scryptR": "\(parameters.r)"
            ])
    }

    static let logger = Logger(label: "passkeyd.keystore")

    /// Applies what the record log holds beyond SQLite's last commit
    /// (`RecordLogEntry.replayable`), each record opened first (an entry forged, or from
    /// another keystore, refuses the store), in one commit flushed before the log is cleared.
    /// That commit's number leaps 2^32 past every number seen, so an entry the file may still
    /// hold beyond a torn one (unseen, as the crash left it) never continues the new chain.
    /// A clear log (the store was closed) needs none of it.
    static func replay(
        _ log: RecordLog.Found, into queue: DatabaseQueue, sealer: RecordSealer, wal: DurableFile, path: String
    ) throws(KeystoreError) -> RecordLog {
        let (file, entries) = (log.file, log.entries)
        let (replayed, fresh): (Int, UInt64)
        do {
            if log.isClear {
                return RecordLog(file: file, last: try queue.read { db in try applied(db) })
            }
            (replayed, fresh) = try queue.write { db in
                let last = try applied(db)
                let chain = RecordLogEntry.replayable(entries, after: last)
                for entry in chain {
                    do { _ = try sealer.open(entry.row) } catch {
                        throw KeystoreError.recordAuthenticationFailed(path: file.path)
                    }
                    try store(entry.row, db, capacity: nil)
                }
                let fresh = max(last, entries.map(\.sequence).max() ?? 0) + (1 << 32)
                try recordApplied(fresh, db)
                return (chain.count, fresh)
            }
        } catch { throw keystoreError(error, path: path) }
        try wal.flush().get()
        try RecordLog.clear(file)
        if replayed > 0 {
            logger.notice("replayed \(replayed) registrations from the record log", metadata: ["path": "\(file.path)"])
        }
        return RecordLog(file: file, last: fresh)
    }

    /// Builds a new keystore under a temporary name and links it into place, so a crash
    /// during creation never leaves a half-made database behind. A key file left by such a
    /// crash is reused rather than replaced. The device state is written with the header.
    private static func create(
        _ layout: KeystoreLayout, lock: KeystoreLock, passphrase: String?, capacity: Int, scrypt: ScryptParameters,
        off: SpeedMechanisms
    ) throws(KeystoreError) -> Keystore {
        let storeID = [UInt8](SymmetricKey(size: .bits128).withUnsafeBytes { Array($0) })
        let protection: KeyProtection
        let keyEncryptionKey: SymmetricKey
        if let passphrase {
            let salt = [UInt8](SymmetricKey(size: .bits128).withUnsafeBytes { Array($0) })
            protection = .passphrase(scrypt, salt: salt)
            do { keyEncryptionKey = try scrypt.deriveKey(passphrase: passphrase, salt: salt) } catch {
                throw .corruptHeader(path: layout.database, reason: .invalidScryptParameters)
            }
        } else {
            protection = .keyFile
            keyEncryptionKey =
                KeystoreLayout.exists(layout.keyFile)
                ? try KeyFile.load(layout.keyFile, database: layout.database)
                : try KeyFile.create(in: layout)
        }
        let dataKey = DataKey.generate()
        let sealer = RecordSealer(dataKey: dataKey, storeID: storeID, path: layout.database)
        let temporary = layout.databaseUnderConstruction
        do {
            let header = KeystoreHeader(
                storeID: storeID, protection: protection,
                wrappedKey: try dataKey.wrapped(under: keyEncryptionKey, storeID: storeID, protection: protection))
            let deviceState = try sealer.seal(factoryFreshDeviceState())
            for suffix in ["", "-journal", "-wal", "-shm"] { try KeystoreLayout.remove(temporary + suffix) }
            // SQLite would create the file with the umask's mode; its -wal and -shm copy the database's.
            try KeystoreLayout.createEmptyPrivateFile(temporary)
            let queue = try writableQueue(temporary)
            try queue.write { db in
                try db.execute(sql: "PRAGMA application_id = \(Schema.applicationID)")
                try header.insert(db)
                try storeDeviceState(deviceState, db)
            }
            try queue.close()
            try KeystoreLayout.move(temporary, to: layout.database)
            try layout.syncDirectory()
        } catch {
            try? KeystoreLayout.remove(temporary)
            throw keystoreError(error, path: temporary)
        }
        logger.info("created keystore", metadata: ["path": "\(layout.database)", "protection": "\(protection.name)"])
        return try Keystore(
            queue: try writableQueue(layout.database), lock: lock, sealer: sealer, path: layout.database,
            capacity: capacity,
            log: try RecordLog.open(directory: layout), off: off)
    }

    /// The connection used once the key is verified: WAL, `synchronous = NORMAL` (a commit
    /// is not flushed by SQLite; the keystore flushes the WAL itself, once for a group of
    /// commits, before a call that needs it durable returns: `GroupCommit`; checkpoints
    /// still flush the WAL before and the database after), `secure_delete` (freed pages
    /// are zeroed); then a newer schema is refused and pending migrations run.
    ///
    /// `locking_mode = EXCLUSIVE`, set before the first access: the connection keeps its
    /// locks until it closes and, entering WAL mode so, keeps the WAL index in its own memory
    /// (no `-shm` file, no `fcntl` lock and unlock around every lookup and commit: 5 % more
    /// sign-ins per second, docs/benchmarks.md). The folder lock already allows one daemon per
    /// keystore; now no other process can read the file while the daemon has it open either.
    private static func writableQueue(_ path: String) throws(KeystoreError) -> DatabaseQueue {
        var configuration = Configuration()
        configuration.label = "passkeyd.keystore"
        // The keystore leaves a transaction open between writes: the registrations only logged (`RecordLog`).
        configuration.allowsUnsafeTransactions = true
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA locking_mode = EXCLUSIVE")
            guard try String.fetchOne(db, sql: "PRAGMA journal_mode = WAL") == "wal" else {
                throw DatabaseError(
                    resultCode: .SQLITE_CANTOPEN, message: "the database cannot use write-ahead logging")
            }
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
            try db.execute(sql: "PRAGMA secure_delete = ON")
            // 8 MiB: the pages a fold's batch of registrations changes stay in memory until it
            // commits them (`RecordLog.entriesPerFold`), instead of spilling to the WAL.
            try db.execute(sql: "PRAGMA cache_size = -8192")
            // SQLite's temporary files in memory. A write inside the open transaction keeps a
            // statement journal (a registration's insert, whose trigger writes a second table; a
            // reset's delete), which past 64 KiB SQLite moves to an unlinked file under /var/tmp:
            // on a store of some thousand credentials every registration then wrote eight 4 KiB
            // pages there. In memory, no page of the keystore leaves its folder either.
            try db.execute(sql: "PRAGMA temp_store = MEMORY")
        }
        do {
            let queue = try DatabaseQueue(path: path, configuration: configuration)
            // The read-only inspection cannot see the WAL, where a newer release's
            // migration may still sit; this connection does.
            do { try queue.read { db in try Schema.refuseNewer(db, path: path) } } catch {
                try? queue.close()
                throw error
            }
            try Schema.migrator.migrate(queue)
            return queue
        } catch {
            throw keystoreError(error, path: path)
        }
    }
}
