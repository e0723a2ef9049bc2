import GRDB

/// Reads an existing keystore's header without writing a byte: the database is
/// opened read-only with SQLite's `immutable=1` URI parameter, which also keeps
/// SQLite from creating or touching the `-wal` and `-shm` files. The header is
/// written once, at creation, and is in the main file before the keystore is first
/// renamed into place, so committed WAL frames never hide a newer header. A newer
/// schema can sit in the WAL, though: the writable open checks it again.
enum KeystoreInspection {
    /// What the read-only pass learns: the header, and whether the main file holds the device-state row.
    struct Findings: Sendable {
        var header: KeystoreHeader
        var hasDeviceState: Bool
    }

    static func header(of path: String) throws(KeystoreError) -> KeystoreHeader {
        try inspect(path).header
    }

    static func inspect(_ path: String) throws(KeystoreError) -> Findings {
        var configuration = Configuration()
        configuration.readonly = true
        configuration.label = "passkeyd.keystore.inspection"
        do {
            let queue = try DatabaseQueue(path: immutableURI(path), configuration: configuration)
            defer { try? queue.close() }
            return try queue.read { db throws in
                guard try Int32.fetchOne(db, sql: "PRAGMA application_id") == Schema.applicationID else {
                    throw KeystoreError.notAKeystore(path: path)
                }
                try Schema.refuseNewer(db, path: path)
                switch try KeystoreHeader.read(db) {
                case .success(let header): return Findings(header: header, hasDeviceState: try Keystore.hasDeviceState(db))
                case .failure(let damage): throw KeystoreError.corruptHeader(path: path, reason: damage)
                }
            }
        } catch let error as KeystoreError {
            throw error
        } catch let error as DatabaseError where [.SQLITE_NOTADB, .SQLITE_CORRUPT, .SQLITE_FORMAT].contains(error.resultCode) {
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
        return (try? queue.read { db in
            try Bool.fetchOne(db, sql: "SELECT sqlite_compileoption_used('USE_URI')")
        }) == true
    }()
}
