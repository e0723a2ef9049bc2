import Foundation

/// The record log (docs/keystore.md, "The record log"): a registration is made durable by one
/// small write here and the group's flush of this file, not by a commit of SQLite's pages (the
/// B-tree's and three indexes' pages, eight WAL frames of 4 KiB per registration). SQLite takes
/// the logged registrations in the keystore's open transaction at once, so every lookup sees
/// them, and commits them in batches: with any other write, and when the half of the log being
/// written is full (a fold).
///
/// The file is given its whole size when made and written in place, so a flush writes data
/// only, never the file's size. Blocks are written whole, straight to the device where it can
/// (`DurableFile.writeBlocks`): the flush's leader writes what changed since the last write
/// (`takeWrites`), then flushes.
///
/// It has two halves: at a fold the keystore commits every entry into SQLite and the other
/// half takes the next entries, from its start, while the WAL is flushed in the background;
/// the folded half may take entries again once that flush ended (`otherHalfFree`). Entries
/// left in a half from before are numbered at or below what SQLite has applied, and replay
/// passes over them (`RecordLogEntry.replayable`).
struct RecordLog: Sendable {
    /// The file's name. Its size and the halves' bounds are part of the format, which replay
    /// reads at open: a build that changes them must use another name, or replay the old log first.
    static let fileName = "keystore.log"
    /// Room for `entriesPerFold` registrations of about 1 KiB in each half; larger records make
    /// a half fold sooner, and a record too large for a half goes to SQLite directly.
    static let capacity = 2 * 1024 * 1024
    static let halfCapacity = capacity / 2
    /// Registrations a half takes before they are committed into SQLite. Each fold costs the
    /// registration that meets it a commit: the pages the batch changed written to the WAL,
    /// chiefly the indexes' leaves, which random hashes spread over the whole index, so a larger
    /// batch writes each leaf once for more registrations (with 4 clients: 64 per fold, ~4 300
    /// registrations/s; 1 024, ~4 600 and p99 under 1.5 ms, docs/benchmarks.md). The batch's
    /// pages stay in SQLite's cache until the fold (`cache_size`, KeystoreOpening).
    static let entriesPerFold = 1024

    let file: DurableFile
    /// The number the last logged save or commit into SQLite took.
    private(set) var last: UInt64
    /// The half being written, and where in it the next entry goes.
    private var half = 0
    private var end = 0
    private var entries = 0
    /// Whether the other half's entries are all in SQLite and flushed there, so it may take the
    /// next fold's entries.
    private(set) var otherHalfFree = true
    /// Folds so far: a background flush reports which fold it covers (`flushed(fold:)`).
    private(set) var folds: UInt64 = 0
    /// How far into each half entries were logged since the log was opened or cleared: what
    /// `clearWritten` zeros (a flush may not have written the last of them yet).
    private var written = [0, 0]
    /// Entries not yet written to the file and flushed, with what precedes them in their first
    /// block: a run of blocks in the half being written, and after a fold one in the other half too.
    private var pending: [BlockWrite] = []
    /// For a run of `pending`, by its offset: how many of its bytes a write took already
    /// (`takeWrites`), so the next write need not repeat them unless entries follow.
    private var taken: [Int: Int] = [:]

    /// Bytes for the file from `offset`, a block's start, to be written whole (`DurableFile.writeBlocks`).
    struct BlockWrite: Sendable {
        var offset: Int
        var bytes: [UInt8]
    }

    /// `last` when the log was opened: a store that took no number since wrote nothing.
    private let lastAtOpen: UInt64

    init(file: DurableFile, last: UInt64) {
        self.file = file
        self.last = last
        lastAtOpen = last
    }

    /// Whether anything was written since the log was opened: a registration, or a commit.
    var wroteSinceOpen: Bool { last != lastAtOpen }

    /// Whether `row` can ever be logged; a larger record is committed into SQLite instead.
    static func canHold(_ row: CredentialRow) -> Bool {
        RecordLogEntry.size(of: row) <= halfCapacity
    }

    /// Whether `row` goes in now, or the log must fold first.
    func hasRoom(for row: CredentialRow) -> Bool {
        entries < Self.entriesPerFold && end + RecordLogEntry.size(of: row) <= Self.halfCapacity
    }

    /// Logs `row` as the next entry; the next write to the file takes it (`takeWrites`).
    mutating func append(_ row: CredentialRow) {
        let entry = RecordLogEntry(sequence: last + 1, previous: last, row: row)
        let offset = half * Self.halfCapacity + end
        if let run = pending.indices.last, pending[run].offset + pending[run].bytes.count == offset {
            pending[run].bytes += entry.encoded
        } else {
            // A half's first entry, or one after a flush that left its block ended: a block's start either way.
            precondition(offset % DurableFile.blockSize == 0, "a run of pending blocks starts on a block")
            pending.append(BlockWrite(offset: offset, bytes: entry.encoded))
        }
        end += entry.size
        written[half] = max(written[half], end)
        entries += 1
        last = entry.sequence
    }

    /// The runs with entries no write took yet, whole from their first block, each taken as it
    /// is now: what a write is to put in the file next. A run a write took and no entry followed
    /// since is left out, part-filled block and all.
    mutating func takeWrites() -> [BlockWrite] {
        let writes = pending.filter { (taken[$0.offset] ?? 0) < $0.bytes.count }
        for write in writes { taken[write.offset] = write.bytes.count }
        return writes
    }

    /// A flush wrote `writes` and made them durable: their whole blocks need no writing again.
    /// The last block of the half being written stays pending, part-filled, so the write after
    /// the next entry puts it back with that entry. `writes` are one flush's: one per run.
    mutating func wrote(_ writes: [BlockWrite]) {
        for write in writes {
            guard let run = pending.firstIndex(where: { $0.offset == write.offset }) else { continue }
            // The whole run when it was all written and no entry can follow it (a folded half).
            let finished = write.bytes.count == pending[run].bytes.count && write.offset / Self.halfCapacity != half
            let done = finished ? write.bytes.count : write.bytes.count / DurableFile.blockSize * DurableFile.blockSize
            let took = taken.removeValue(forKey: write.offset) ?? 0
            pending[run].offset += done
            pending[run].bytes.removeFirst(done)
            if pending[run].bytes.isEmpty {
                pending.remove(at: run)
            } else if took > done {
                taken[pending[run].offset] = took - done
            }
        }
    }

    /// A write taken was not made (refused, or it or its flush failed): every pending run is
    /// taken again by the next write.
    mutating func untake() {
        taken = [:]
    }

    /// The number a commit into SQLite records as applied; it is taken (`committed`) only once
    /// the commit succeeded, so a failed commit leaves no gap in the chain.
    var nextSequence: UInt64 { last + 1 }

    mutating func committed(_ sequence: UInt64) { last = sequence }

    /// A commit into SQLite holds every entry: the other half, which must be free, takes the
    /// next ones from its start, and this one is free once a flush covering that commit ended
    /// (`flushed(fold:)`, with the number returned).
    mutating func fold() -> UInt64 {
        precondition(otherHalfFree, "a half still needed was written over")
        half ^= 1
        // What a failed flush left of this half is in SQLite, flushed there: no need to write it.
        pending.removeAll { $0.offset / Self.halfCapacity == half }
        taken = taken.filter { $0.key / Self.halfCapacity != half }
        end = 0
        entries = 0
        otherHalfFree = false
        folds += 1
        return folds
    }

    /// A flush of the WAL that covers fold `fold`'s commit ended: the half that fold left is
    /// free, unless a later fold left another since.
    mutating func flushed(fold: UInt64) {
        if fold == folds { otherHalfFree = true }
    }

    /// The log as found at open.
    struct Found: Sendable {
        let file: DurableFile
        /// Both halves' whole entries, in number order.
        let entries: [RecordLogEntry]
        /// Zeros throughout: nothing to replay and nothing to clear (the store was closed, or
        /// the log was just made).
        let isClear: Bool
    }

    /// Opens the log in `directory`, creating it (mode 0600) when absent, and reads the
    /// entries it holds; `Keystore.replay` then applies them and clears the file.
    static func open(directory: KeystoreLayout) throws(KeystoreError) -> Found {
        let path = directory.recordLog
        let created = !KeystoreLayout.exists(path)
        if created { try KeystoreLayout.createEmptyPrivateFile(path) }
        let file = try DurableFile.privateFile(path)
        let size = try file.size()
        let bytes = try file.read(min(size, capacity))
        // Both halves; replay orders their entries by number.
        let entries = [0..<min(halfCapacity, bytes.count), min(halfCapacity, bytes.count)..<bytes.count]
            .flatMap { RecordLogEntry.entries(in: bytes, region: $0) }
            .sorted { $0.sequence < $1.sequence }
        // Zeros throughout: the first byte is zero, and each byte equals the one after it.
        let isClear = bytes.withUnsafeBytes { raw in
            raw.count < 2
                ? raw.allSatisfy { $0 == 0 }
                : raw[0] == 0 && memcmp(raw.baseAddress!, raw.baseAddress! + 1, raw.count - 1) == 0
        }
        // The file's full size, written as zeros; not flushed here: the first flush of an
        // entry carries it (until then the missing part reads as zeros too).
        if size < capacity { try file.writeZeros(count: capacity - size, at: size) }
        // Its name must outlive a crash as surely as the entries flushed into it.
        if created { try directory.syncDirectory() }
        return Found(file: file, entries: entries, isClear: isClear)
    }

    /// Zeros over the whole log, flushed: its full size, and no entry left from before.
    static func clear(_ file: DurableFile) throws(KeystoreError) {
        try file.writeZeros(count: capacity, at: 0)
        try file.flush().get()
    }

    /// Zeros over what was written since the log was opened, flushed: once SQLite holds every
    /// entry on disk (the store closed), the next open finds the log clear and has nothing to do.
    mutating func clearWritten() throws(KeystoreError) {
        guard written != [0, 0] else { return }
        for half in 0..<2 where written[half] > 0 {
            try file.writeZeros(count: written[half], at: half * Self.halfCapacity)
        }
        try file.flush().get()
        written = [0, 0]
    }
}
