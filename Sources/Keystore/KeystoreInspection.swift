import Foundation
import GRDB

/// Reads an existing keystore's header without writing a byte: the database is
/// opened read-only with SQLite's `immutable=1` URI parameter, which also keeps
/// SQLite from creating or touching the `-wal` and `-shm` files. The header is
/// written once, at creation, and is in the main file before the keystore is first
/// renamed into place, so committed WAL frames never hide a newer header. A newer
/// schema can sit in the WAL, though: the writable open checks it again.
///
/// The main file alone is not always a database: a kill in the middle of a checkpoint
/// leaves some of the WAL's pages copied into it (page 1 first, whose header counts pages
/// the file has not grown to yet), and only the WAL, still whole, makes it consistent
/// again. So a main file that does not read as a keystore while a WAL lies beside it is
/// read once more, through the WAL (`inspectThroughWAL`), before it is called foreign.
enum KeystoreInspection {
    /// What the read-only pass learns: the header, and whether what it read (the main file, or through
    /// the WAL) holds the device-state row.
    struct Findings: Sendable {
        var header: KeystoreHeader
        var hasDeviceState: Bool
    }

    static func header(of path: String) throws(KeystoreError) -> KeystoreHeader {
        try inspect(path).header
    }

    static func inspect(_ path: String) throws(KeystoreError) -> Findings {
        do {
            return try read(path, opening: immutableURI(path))
        } catch .notAKeystore where hasWAL(path) {
            return try inspectThroughWAL(path)
        }
    }

    /// A read-only connection that reads the WAL, through SQLite's index of it, the `-shm`
    /// file, which it creates where there is none (the daemon's connection keeps that index in
    /// its own memory, `locking_mode = EXCLUSIVE`, and a read-only one cannot: it would need a
    /// write lock). An index made here is removed again, so a refused open still leaves the
    /// directory as it was; the database and the WAL are only read.
    private static func inspectThroughWAL(_ path: String) throws(KeystoreError) -> Findings {
        let index = path + "-shm"
        let madeIndex = !KeystoreLayout.exists(index)
        defer { if madeIndex { unlink(index) } }
        return try read(path, opening: path)
    }

    private static func hasWAL(_ path: String) -> Bool {
        var info = stat()
        return stat(path + "-wal", &info) == 0 && info.st_size > 0
    }

    private static func read(_ path: String, opening location: String) throws(KeystoreError) -> Findings {
        var configuration = Configuration()
        configuration.readonly = true
        configuration.label = "passkeyd.keystore.inspection"
        do {
            let queue = try DatabaseQueue(path: location, configuration: configuration)
            defer { try? queue.close() }
            return try queue.read { db throws in
                guard try Int32.fetchOne(db, sql: "PRAGMA application_id") == Schema.applicationID else {
                    throw KeystoreError.notAKeystore(path: path)
                }
                try Schema.refuseNewer(db, path: path)
                switch try KeystoreHeader.read(db) {
                case .success(let header):
                    return Findings(header: header, hasDeviceState: try Keystore.hasDeviceState(db))
                case .failure(let damage): throw KeystoreError.corruptHeader(path: path, reason: damage)
                }
            }
        } catch let error as KeystoreError {
            throw error
        } catch let error as DatabaseError
            where [.SQLITE_NOTADB, .SQLITE_CORRUPT, .SQLITE_FORMAT].contains(error.resultCode)
        {
            throw .notAKeystore(path: path)
        } catch {
            throw Keystore.keystoreError(error, path: path)
        }
    }

    /// A `file:` URI naming `path` with `immutable=1`. SQLite builds without URI support
    /// (not Debian's, Fedora's or Apple's) get the plain path, opened read-only.
    static func immutableURI(_ path: String) -> String {
        guard uriFilenamesEnabled else { return path }
        var escaped = ""
        for character in path.unicodeScalars {
            switch character {
            case "%": escaped += "%25"
            case "?": escaped += "%3F"
            case "#": escaped += "%23"
            default: escaped.unicodeScalars.append(character)
            }
        }
        return "file:\(escaped)?immutable=1"
    }

    private static let uriFilenamesEnabled: Bool = {
        guard let queue = try? DatabaseQueue() else { return false }
        return
            (try? queue.read { db in
                try Bool.fetchOne(db, sql: "SELECT sqlite_compileoption_used('USE_URI')")
            }) == true
    }()
}
