import Authenticator
import CTAP
import Crypto
import Foundation
import GRDB
import Synchronization

/// The durable, encrypted `CredentialStore`: one SQLite database (WAL) in a
/// directory of mode 0700, every record sealed with AES-256-GCM under a data key,
/// rows found through keyed hashes. See docs/keystore.md for the format.
///
/// Durability: every call but `save` returns once its transaction is flushed to disk, so
/// the CTAP response that follows cannot announce what a crash or power loss would take
/// back. A `save` returns once written to the record log and given to SQLite's open
/// transaction, where every later call sees it; it is durable once a later `durable()`
/// returns, which lets registrations from several connections share one flush (`GroupCommit`).
///
/// This file is the plain path: SQLite's WAL. The speed mechanisms on top of it live in
/// `Speed/` (docs/architecture.md, "Speed mechanisms"), each entered from here at one call and
/// each with its switch (`SpeedMechanisms`): the record log (`register`, from `save`) and group
/// commit (`durable()`).
public actor Keystore: CredentialStore {
    public static let databaseFileName = "keystore.sqlite"
    public static let keyFileName = "keystore.key"
    /// 100 000 resident credentials: far beyond a hardware key, and still well inside
    /// what the indexed lookups answer in well under a millisecond.
    public static let defaultCapacity = 100_000

    public nonisolated let capacity: Int
    /// The database file's path.
    public nonisolated let path: String
    /// GRDB serialises every use of the one connection; `isClosed` is set and read inside it,
    /// so the lookups can run outside this actor (`readNow`). Internal for the tests, which
    /// make SQLite refuse a statement through it.
    nonisolated let queue: DatabaseQueue
    let isClosed = Atomic<Bool>(false)
    /// Held from before the directory is inspected until `close()`.
    private var lock: KeystoreLock?
    private let sealer: RecordSealer
    /// The database file opened: a write first checks that `path` still names it.
    private let file: FileIdentity
    // What follows is internal, not private, where `Speed/`'s extensions of this actor use it.
    /// What `durable()` flushes: the WAL, and the record log.
    let wal: DurableFile
    nonisolated let logFile: DurableFile
    /// Registrations go here first (`RecordLog`); SQLite takes them in batches.
    var log: RecordLog
    /// Rows logged since the last commit into SQLite, which its open transaction holds: put
    /// back if a failed commit rolls that transaction back.
    var uncommitted: [CredentialRow] = []
    var groupCommit = GroupCommit() {
        didSet { everythingDurable.store(groupCommit.isDurable, ordering: .releasing) }
    }
    /// `groupCommit.isDurable`, published for `durable()`, which every answer of the daemon
    /// awaits: when nothing is left to flush (every sign-in but the rare counter-mark write)
    /// it returns without visiting this actor (two executor switches, each a job through the
    /// event loop's queue in the daemon). One word, written on the actor right after the state
    /// it copies, and for a commit inside GRDB's serialised connection: a caller whose commit,
    /// or whose lookup of another's rows, came before it asks sees false, or a later true that
    /// a flush covering that commit set.
    let everythingDurable = Atomic<Bool>(true)
    /// Space given up when the disk fills, for every write but a registration's.
    private var reserve: DiskReserve
    /// The speed mechanisms this store runs without (`SpeedMechanisms`): a bench switch.
    nonisolated let off: SpeedMechanisms

    /// Takes over an open database and its record log, whose `entries` are replayed first
    /// (`replay`).
    init(
        queue: DatabaseQueue, lock: KeystoreLock, sealer: RecordSealer, path: String, capacity: Int,
        log: RecordLog.Found,
        off: SpeedMechanisms
    ) throws(KeystoreError) {
        guard let file = FileIdentity(path) else { throw .deleted(path: path) }
        let wal = try DurableFile.wal(databasePath: path)
        self.queue = queue
        self.lock = lock
        self.sealer = sealer
        self.path = path
        self.capacity = capacity
        self.off = off
        self.file = file
        self.wal = wal
        logFile = log.file
        self.log = try Self.replay(log, into: queue, sealer: sealer, wal: wal, path: path)
        var reserve = DiskReserve(directory: URL(fileURLWithPath: path).deletingLastPathComponent().path)
        if !reserve.hold() {
            Self.logger.warning(
                "no room for the keystore's disk reserve; a full disk will stop sign-ins that need a new counter mark",
                metadata: ["path": "\(reserve.path)"])
        }
        self.reserve = reserve
    }

    /// Closes the database: the registrations only logged are committed, the WAL is
    /// checkpointed into the main file, then the directory is let go. Later calls throw
    /// `KeystoreError.closed`. A store that stopped after a failure is let go as it stands.
    public func close() throws(KeystoreError) {
        var loggedAreInSQLite = false
        let alreadyClosed = queue.inDatabase { db in
            guard !isClosed.exchange(true, ordering: .relaxed) else { return true }
            // A store that wrote nothing since it opened has nothing to commit, flush or clear.
            guard log.wroteSinceOpen else { return false }
            if db.isInsideTransaction { try? commit(db) }
            // A failed commit put them back: the log keeps them, and the next open replays them.
            if db.isInsideTransaction {
                try? db.rollback()
            }
            // Flushed here, not left to the checkpoint on close, which may fail and keep the WAL.
            else if case .success = wal.flush() {
                loggedAreInSQLite = true
            }
            return false
        }
        // A store stopped by a failure (`restoreUncommitted`, `storeLogged`) still holds its
        // directory: it is let go as it stands, its log keeping what SQLite lost for the next open.
        guard !alreadyClosed || lock != nil else { return }
        defer { lock = nil }
        do { try queue.close() } catch { throw Self.keystoreError(error, path: path) }
        // Should the clearing fail, the next open finds the entries at or below what SQLite
        // applied, and clears them then.
        if loggedAreInSQLite { try? log.clearWritten() }
    }

    // MARK: CredentialStore

    /// On the caller's executor, like `credential(id:)`: one SELECT through GRDB's serialised
    /// connection, no visit to this actor (two executor switches, each a job through the event
    /// loop's queue in the daemon).
    public nonisolated(nonsending) func credentials(rpID: String) async throws(CredentialStoreError)
        -> [CredentialSource]
    {
        try failures {
            let rpHash = sealer.lookup.rp(rpID)
            let rows = try readNow { db in
                try Self.fetchRows(db, sql: Self.credentialsByRPQuery, arguments: [rpHash], path: self.path)
            }
            // `open` checks the row's RP hash against the record, so no other RP's record comes back.
            return try rows.map { row throws(KeystoreError) in try sealer.open(row, foundBy: (rpID, rpHash)) }
        }
    }

    public nonisolated(nonsending) func credential(id: [UInt8]) async throws(CredentialStoreError) -> CredentialSource?
    {
        try failures {
            let idHash = sealer.lookup.credential(id)
            let rows = try readNow { db in
                try Self.fetchRows(db, sql: Self.credentialByIDQuery, arguments: [idHash], path: self.path)
            }
            return try rows.first.map { row throws(KeystoreError) in try sealer.open(row) }
        }
    }

    public func allCredentials() async throws(CredentialStoreError) -> [CredentialSource] {
        try await failures {
            let rows = try await read { db in
                try Self.fetchRows(
                    db, sql: "SELECT * FROM credential ORDER BY seq DESC", arguments: [], path: self.path)
            }
            return try rows.map { row throws(KeystoreError) in try sealer.open(row) }
        }
    }

    /// Kept by triggers (`Schema`, "v2-credential-count"): no walk over the rows.
    public func count() async throws(CredentialStoreError) -> Int {
        try failures {
            try readNow { db in try Self.storedCount(db) }
        }
    }

    /// Stores a credential, replacing in the same transaction any with the same RP ID
    /// and user handle (CTAP 2.1 §6.1.2 step 17) or the same credential ID.
    /// Throws `.full` when the store already holds `capacity` others, or the disk has no room.
    /// Committed, visible to every later call, and durable once `durable()` returns after it.
    public func save(_ credential: CredentialSource) async throws(CredentialStoreError) {
        try await failures {
            let row = try sealer.seal(credential)
            let capacity = capacity
            // A record too large for the log is committed into SQLite like any other write. A
            // full disk is the authenticator's key store being full (CTAP 2.1 §6.1.2 step 17's error).
            // With the record log off, every registration takes that path.
            if RecordLog.canHold(row), !off.contains(.recordLog) {
                try register(row)
            } else {
                try await write(diskFullIsStoreFull: true, flush: false) { db in
                    try Self.store(row, db, capacity: capacity)
                }
            }
            // With group commit off the save is flushed before it returns, the store held meanwhile.
            if off.contains(.groupCommit) { try flushHoldingTheStore().get() }
            // A registration stored: the disk has room again, perhaps for the reserve given up.
            if !reserve.isHeld { reserve.hold() }
        }
    }

    /// Stores new credentials in one transaction: a bulk import (the benchmark seeds its large
    /// stores with it). Nothing is replaced: a credential whose ID, or RP ID and user handle,
    /// is already stored fails the whole import, as does one past `capacity`.
    public func importCredentials(_ credentials: [CredentialSource]) async throws(CredentialStoreError) {
        try await failures {
            let rows = try credentials.map { credential in try sealer.seal(credential) }
            let capacity = capacity
            try await write(diskFullIsStoreFull: true) { db in
                for row in rows { try Self.insert(row, db) }
                guard try Self.storedCount(db) <= capacity else { throw CredentialStoreError.full }
            }
        }
    }

    /// Records a new signature counter; a credential that is not stored is ignored.
    public func updateSignCount(credentialID: [UInt8], to signCount: UInt32) async throws(CredentialStoreError) {
        try await failures {
            try await modify(credentialID: credentialID) { $0.signCount = signCount }
        }
    }

    /// Replaces the user entity's name and display name; a credential that is not stored
    /// is ignored. The user handle is kept: it is fixed at registration (CTAP 2.1 §6.8.6
    /// matches on it), and the row's lookup hash is derived from it.
    public func updateUser(credentialID: [UInt8], to user: PublicKeyCredentialUserEntity)
        async throws(CredentialStoreError)
    {
        try await failures {
            try await modify(credentialID: credentialID) { credential in
                credential.user = PublicKeyCredentialUserEntity(
                    id: credential.user.id, name: user.name, displayName: user.displayName)
            }
        }
    }

    public func delete(credentialID: [UInt8]) async throws(CredentialStoreError) {
        try await failures {
            let idHash = sealer.lookup.credential(credentialID)
            try await write { db in
                try db.execute(sql: "DELETE FROM credential WHERE credentialIDHash = ?", arguments: [idHash])
            }
        }
    }

    /// Removes every credential and replaces the device state with a factory-fresh one in the
    /// same transaction: the row is never absent, since its absence means tampering (`deviceStateMissing`).
    public func deleteAll() async throws(CredentialStoreError) {
        try await failures {
            let sealed = try sealer.seal(Self.factoryFreshDeviceState())
            try await write { db in
                try db.execute(sql: "DELETE FROM credential")
                try Self.storeDeviceState(sealed, db)
            }
        }
    }

    public func loadDeviceState() async throws(CredentialStoreError) -> DeviceState? {
        try await failures {
            let sealer = sealer
            return try await read { db in try Self.fetchDeviceState(db, sealer) }
        }
    }

    public func saveDeviceState(_ state: DeviceState) async throws(CredentialStoreError) {
        try await failures {
            let sealed = try sealer.seal(state)
            try await write { db in try Self.storeDeviceState(sealed, db) }
        }
    }

    /// Reads, changes and writes the device state inside one write transaction.
    public func updateDeviceState<T: Sendable>(
        _ change: @escaping @Sendable (inout DeviceState?) throws(CTAPStatus) -> T
    ) async throws(CredentialStoreError) -> T {
        try await failures {
            let sealer = sealer
            return try await write { db in
                let stored = try Self.fetchDeviceState(db, sealer)
                var state = stored
                let result = try change(&state)
                if let state, state != stored { try Self.storeDeviceState(try sealer.seal(state), db) }
                return result
            }
        }
    }

    public nonisolated var isDurable: Bool { everythingDurable.load(ordering: .acquiring) }

    // `durable()`, the flush several callers share: Speed/Keystore+GroupCommit.swift.

    // MARK: Internals

    /// Answered from the index `credential_by_rp_seq`: no scan, no decryption of other RPs' rows.
    static let credentialsByRPQuery = "SELECT * FROM credential WHERE rpIDHash = ? ORDER BY seq DESC"
    /// Answered from the unique index on `credentialIDHash`.
    static let credentialByIDQuery = "SELECT * FROM credential WHERE credentialIDHash = ?"

    /// Opens, changes and reseals one record inside one write transaction. Only the
    /// sealed blob changes: neither update touches the RP or the user handle, so the
    /// lookup hashes and the row's `seq` (newest-first order) stay as they are.
    private func modify(credentialID: [UInt8], _ change: @escaping @Sendable (inout CredentialSource) -> Void)
        async throws
    {
        let idHash = sealer.lookup.credential(credentialID)
        let sealer = sealer
        try await write { db in
            guard
                let row = try Self.fetchRows(
                    db, sql: Self.credentialByIDQuery, arguments: [idHash], path: self.path
                ).first
            else { return }
            var credential = try sealer.open(row)
            change(&credential)
            let updated = try sealer.seal(credential)
            try db.execute(
                sql: "UPDATE credential SET sealed = ? WHERE credentialIDHash = ?", arguments: [updated.sealed, idHash])
        }
    }

    static func storedCount(_ db: Database) throws -> Int {
        try Int.fetchOne(db.cachedStatement(sql: "SELECT count FROM credential_count WHERE id = 1")) ?? 0
    }

    /// A device as it leaves the factory: no PIN, full retries, a new wrapping key (CTAP 2.1 §6.6).
    static func factoryFreshDeviceState() -> DeviceState {
        DeviceState(wrappingKey: SymmetricKey(size: .bits256).withUnsafeBytes { Array($0) })
    }

    static func hasDeviceState(_ db: Database) throws -> Bool {
        try Int.fetchOne(db, sql: "SELECT count(*) FROM device_state WHERE id = 1") == 1
    }

    private static func fetchDeviceState(_ db: Database, _ sealer: RecordSealer) throws -> DeviceState? {
        try Data.fetchOne(db, sql: "SELECT sealed FROM device_state WHERE id = 1")
            .map { blob throws(KeystoreError) in try sealer.openDeviceState(blob) }
    }

    static func storeDeviceState(_ sealed: Data, _ db: Database) throws {
        try db.execute(sql: "INSERT OR REPLACE INTO device_state (id, sealed) VALUES (1, ?)", arguments: [sealed])
    }

    /// A registration's change (CTAP 2.1 §6.1.2 step 17): any credential with the same RP and
    /// user handle, or the same ID, is replaced. `capacity` nil: replay, of a save accepted before.
    static func store(_ row: CredentialRow, _ db: Database, capacity: Int?) throws {
        try db.cachedStatement(
            sql: "DELETE FROM credential WHERE (rpIDHash = ? AND userHandleHash = ?) OR credentialIDHash = ?"
        )
        .execute(arguments: [row.rpIDHash, row.userHandleHash, row.credentialIDHash])
        if let capacity, try storedCount(db) >= capacity { throw CredentialStoreError.full }
        try insert(row, db)
    }

    /// The number of the last commit into SQLite in the record log's sequence (`RecordLogEntry`).
    static func applied(_ db: Database) throws -> UInt64 {
        UInt64(
            bitPattern: try Int64.fetchOne(db.cachedStatement(sql: "SELECT applied FROM record_log WHERE id = 1")) ?? 0)
    }

    static func recordApplied(_ sequence: UInt64, _ db: Database) throws {
        try db.cachedStatement(sql: "UPDATE record_log SET applied = ? WHERE id = 1").execute(arguments: [
            Int64(bitPattern: sequence)
        ])
    }

    static func insert(_ row: CredentialRow, _ db: Database) throws {
        try db.cachedStatement(
            sql: "INSERT INTO credential (credentialIDHash, rpIDHash, userHandleHash, sealed) VALUES (?, ?, ?, ?)"
        )
        .execute(arguments: [row.credentialIDHash, row.rpIDHash, row.userHandleHash, row.sealed])
    }

    /// A damaged file can hold NULL, or a number, where a row's blobs belong (NOT NULL and
    /// BLOB bind writers only), or name a column otherwise; such a row fails like a forged
    /// tag instead of trapping in GRDB's converting subscript.
    private static func fetchRows(_ db: Database, sql: String, arguments: StatementArguments, path: String) throws
        -> [CredentialRow]
    {
        // Cached: the lookups of every assertion are not parsed again each time.
        let statement = try db.cachedStatement(sql: sql)
        // Columns found by name once per query, not once per row and column (a case-insensitive
        // compare each); a row read in place from the statement, not copied first. A column a
        // damaged schema lacks still fails only a query that finds a row, as before.
        let columns = ["credentialIDHash", "rpIDHash", "userHandleHash", "sealed"].map { statement.index(ofColumn: $0) }
        var rows: [CredentialRow] = []
        let cursor = try Row.fetchCursor(statement, arguments: arguments)
        while let row = try cursor.next() {
            let blobs = columns.map { column in column.flatMap { Data.fromDatabaseValue(row[$0] as DatabaseValue) } }
            guard let credentialIDHash = blobs[0], let rpIDHash = blobs[1], let userHandleHash = blobs[2],
                let sealed = blobs[3]
            else { throw KeystoreError.recordAuthenticationFailed(path: path) }
            rows.append(
                CredentialRow(
                    credentialIDHash: credentialIDHash, rpIDHash: rpIDHash, userHandleHash: userHandleHash,
                    sealed: sealed))
        }
        return rows
    }

    /// The lookups an assertion makes, on the calling thread and outside a transaction: one
    /// SELECT is consistent on its own, and the hop to GRDB's queue and back (two thread
    /// wake-ups, a BEGIN and a COMMIT) cost more than the lookup. It waits while a write runs.
    private nonisolated func readNow<T>(_ body: (Database) throws -> T) throws -> T {
        do {
            return try queue.inDatabase { db in
                guard !isClosed.load(ordering: .relaxed) else { throw KeystoreError.closed }
                return try body(db)
            }
        } catch { throw Self.keystoreError(error, path: path) }
    }

    private func read<T: Sendable>(_ body: @Sendable (Database) throws -> T) async throws -> T {
        do {
            return try await queue.read { db in
                guard !isClosed.load(ordering: .relaxed) else { throw KeystoreError.closed }
                return try body(db)
            }
        } catch { throw Self.keystoreError(error, path: path) }
    }

    /// One write, committed before this returns, and flushed to disk too unless `flush` is
    /// false (then a later `durable()` covers it). It commits the registrations only logged
    /// (`register`) with its own change. What `body` throws of the store's own vocabulary
    /// (`CredentialStoreError`, a change's `CTAPStatus`) passes through, and undoes only
    /// `body`'s change; a full file system is `.full` where asked (a save).
    ///
    /// The write runs on the actor's thread (`inDatabase`), like `readNow`: under
    /// `synchronous = NORMAL` a commit only appends to the WAL, a few microseconds, while the
    /// hop to GRDB's queue and back cost two thread wake-ups. (A commit that crosses
    /// `wal_autocheckpoint` checkpoints, and holds this thread while it flushes.)
    private func write<T: Sendable>(
        diskFullIsStoreFull: Bool = false, flush: Bool = true, _ body: @Sendable (Database) throws -> T
    ) async throws -> T {
        let result = try changing(diskFullIsStoreFull: diskFullIsStoreFull) { db in
            if !db.isInsideTransaction { try db.beginTransaction() }
            let result = try undoingOnFailure(db) { try body(db) }
            try commit(db)
            groupCommit.recordCommit(to: .wal)
            return result
        }
        if flush { try await durable() }
        return result
    }

    /// Runs `change` on GRDB's connection, on this thread. Nothing is written once the file was
    /// deleted or replaced: it would be acknowledged and then lost with the file. Errors as
    /// `write` says.
    func changing<T>(diskFullIsStoreFull: Bool, _ change: (Database) throws -> T) throws -> T {
        guard !isClosed.load(ordering: .relaxed) else { throw KeystoreError.closed }
        guard FileIdentity(path) == file else { throw KeystoreError.deleted(path: path) }
        do {
            return try queue.inDatabase { db in
                guard !isClosed.load(ordering: .relaxed) else { throw KeystoreError.closed }
                return try change(db)
            }
        } catch let error as CredentialStoreError { throw error } catch let status as CTAPStatus { throw status } catch
        {
            let failure = Self.keystoreError(error, path: path)
            if failure == .diskFull(path: path), diskFullIsStoreFull {
                Self.logger.error("\(failure)")
                throw CredentialStoreError.full
            }
            // Anything but a registration may spend the reserve: the failed change was undone
            // whole (`undoingOnFailure`, `commit`), so it is made again, once, in the room freed.
            if failure == .diskFull(path: path), reserve.release() {
                Self.logger.warning(
                    "The file system holding the keystore \(path) is full; its 1 MiB reserve was given up so sign-ins and PIN checks keep working. Free some space: registrations are refused until then."
                )
                return try changing(diskFullIsStoreFull: diskFullIsStoreFull, change)
            }
            throw failure
        }
    }

    /// No savepoint around each change (two statements more per registration): a failed one
    /// rolls the transaction back, and the logged rows it held are put back.
    func undoingOnFailure<T>(_ db: Database, _ change: () throws -> T) throws -> T {
        do { return try change() } catch {
            try? db.rollback()
            restoreUncommitted(db)
            throw error
        }
    }

    /// Commits the open transaction, numbered in the log's sequence (`RecordLogEntry.previous`):
    /// replay after a crash applies a later entry only if this commit survived. A failed commit
    /// is undone whole, and the logged rows it held are put back in a new transaction.
    func commit(_ db: Database) throws {
        let sequence = log.nextSequence
        do {
            try Self.recordApplied(sequence, db)
            try db.commit()
        } catch {
            if db.isInsideTransaction { try? db.rollback() }
            restoreUncommitted(db)
            throw error
        }
        log.committed(sequence)
        uncommitted = []
    }

    /// Puts the logged rows that a failed write or commit rolled back into a new open
    /// transaction. Should that fail too, the store stops: it could no longer answer with every
    /// acknowledged registration, which the log still holds for the next open to replay.
    private func restoreUncommitted(_ db: Database) {
        guard !uncommitted.isEmpty else { return }
        do {
            try db.beginTransaction()
            for row in uncommitted { try Self.store(row, db, capacity: nil) }
        } catch {
            try? db.rollback()
            isClosed.store(true, ordering: .relaxed)
            Self.logger.error(
                "\(Self.keystoreError(error, path: path)); the keystore stops, and its next open replays the record log"
            )
        }
    }

    /// Runs one `CredentialStore` operation: a full store (or, for a save, a full disk) is
    /// `.full`, a device-state change's own refusal is `.refused`, anything else `.failed`.
    private func failures<T: Sendable>(_ body: () async throws -> T) async throws(CredentialStoreError) -> T {
        do { return try await body() } catch { throw storeError(error) }
    }

    /// `failures` for a lookup, which runs on the caller's executor: synchronous, since an
    /// async closure passed here would run on the global executor, two executor switches.
    private nonisolated func failures<T>(_ body: () throws -> T) throws(CredentialStoreError) -> T {
        do { return try body() } catch { throw storeError(error) }
    }

    private nonisolated func storeError(_ error: any Error) -> CredentialStoreError {
        switch error {
        case let error as CredentialStoreError: error
        case let status as CTAPStatus: .refused(status)
        case let failure as KeystoreError: .failed(failure)
        default: .failed(Self.keystoreError(error, path: path))
        }
    }

    /// SQLite errors become `KeystoreError.database`; the keystore's own errors pass through.
    static func keystoreError(_ error: any Error, path: String) -> KeystoreError {
        switch error {
        case let error as KeystoreError: return error
        case let error as DatabaseError where error.resultCode == .SQLITE_FULL:
            return .diskFull(path: path)
        case let error as DatabaseError:
            return .database(
                path: path, resultCode: error.extendedResultCode.rawValue, message: error.message ?? "unknown error")
        default: return .database(path: path, resultCode: -1, message: String(describing: type(of: error)))
        }
    }
}
