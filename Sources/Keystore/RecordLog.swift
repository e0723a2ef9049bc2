import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The record log (docs/keystore.md, "The record log"): a registration is made durable by one
/// small write here and the group's flush of this file, not by a commit of SQLite's pages (the
/// B-tree's and three indexes' pages, eight WAL frames of 4 KiB per registration). SQLite takes
/// the logged registrations in the keystore's open transaction at once, so every lookup sees
/// them, and commits them in batches: when the log is full (`fold`), and with any other write.
///
/// The file is given its whole size when made and written in place from the start, so a flush
/// writes data only, never the file's size. Once a commit holding every entry is flushed, the
/// next entry goes at the start again; entries left beyond it are numbered at or below what
/// SQLite has applied, and replay passes over them (`RecordLogEntry.replayable`).
struct RecordLog: Sendable {
    static let fileName = "keystore.log"
    /// Room for a few hundred registrations: the log folds long before it fills unless the
    /// records are large, and a record too large for it goes to SQLite directly.
    static let capacity = 256 * 1024
    /// Registrations logged before they are committed into SQLite and flushed there. Each fold
    /// costs a commit and a flush of the WAL on the registration that meets it (about a
    /// millisecond); more entries per fold spread it thinner but keep more uncommitted pages
    /// in SQLite's cache.
    static let entriesPerFold = 64

    let file: DurableFile
    /// The number the last logged save or commit into SQLite took.
    private(set) var last: UInt64
    /// Where the next entry goes.
    private var end = 0
    private var entries = 0

    init(file: DurableFile, last: UInt64) {
        self.file = file
        self.last = last
    }

    /// Whether `row` can ever be logged; a larger record is committed into SQLite instead.
    static func canHold(_ row: CredentialRow) -> Bool {
        RecordLogEntry.minimumSize + row.sealed.count <= capacity
    }

    /// Whether `row` goes in now, or the log must fold first.
    func hasRoom(for row: CredentialRow) -> Bool {
        entries < Self.entriesPerFold && end + RecordLogEntry.minimumSize + row.sealed.count <= Self.capacity
    }

    /// Writes `row` as the next entry (not flushed: `GroupCommit` flushes). A failed write
    /// takes no number, so the next entry still follows the last whole one.
    mutating func append(_ row: CredentialRow) throws(KeystoreError) {
        let entry = RecordLogEntry(sequence: last + 1, previous: last, row: row)
        try file.write(entry.encoded, at: end)
        end += entry.size
        entries += 1
        last = entry.sequence
    }

    /// The number a commit into SQLite records as applied; it is taken (`committed`) only once
    /// the commit succeeded, so a failed commit leaves no gap in the chain.
    var nextSequence: UInt64 { last + 1 }

    mutating func committed(_ sequence: UInt64) { last = sequence }

    /// A flushed commit into SQLite holds every entry: the next one goes at the start.
    mutating func restart() {
        end = 0
        entries = 0
    }

    /// Opens the log in `directory`, creating it (mode 0600) when absent, and reads the
    /// entries it holds; `Keystore.replay` then applies them and clears the file.
    static func open(directory: KeystoreLayout) throws(KeystoreError) -> (file: DurableFile, entries: [RecordLogEntry]) {
        let path = directory.recordLog
        let created = !KeystoreLayout.exists(path)
        if created { try KeystoreLayout.createEmptyPrivateFile(path) }
        let file = try DurableFile.privateFile(path)
        let entries = RecordLogEntry.entries(in: try file.read(capacity))
        if created { try directory.syncDirectory() }
        return (file, entries)
    }

    /// Zeros over the whole log, flushed: its full size, and no entry left from before.
    static func clear(_ file: DurableFile) throws(KeystoreError) {
        try file.write([UInt8](repeating: 0, count: capacity), at: 0)
        try file.flush().get()
    }
}
