/// Why a keystore could not be opened or used. Every message names the file
/// concerned and never carries a key, a passphrase or record contents.
public enum KeystoreError: Error, CustomStringConvertible, Sendable, Equatable {
    /// The passphrase does not unwrap the data key.
    case wrongPassphrase(database: String)
    /// The keystore is protected by a passphrase and none was given.
    case passphraseRequired(database: String)
    /// The keystore is protected by its key file, yet a passphrase was given.
    case passphraseNotExpected(database: String)
    /// A passphrase was given but is empty.
    case emptyPassphrase
    /// The keystore is protected by a key file that does not exist.
    case missingKeyFile(path: String, database: String)
    /// The key file does not hold exactly 32 bytes.
    case keyFileWrongSize(path: String, size: Int)
    /// The key file is well formed but does not unwrap the data key: it belongs to another keystore.
    case keyFileMismatch(path: String, database: String)
    /// The file is not a passkeyd keystore: not SQLite, or SQLite without the passkeyd application ID.
    case notAKeystore(path: String)
    /// The file is a passkeyd keystore whose header is damaged.
    case corruptHeader(path: String, reason: HeaderDamage)
    /// The file was migrated by a newer passkeyd to a schema this build does not know.
    case schemaNewer(path: String, unknownMigrations: [String])
    /// A `-wal` or `-shm` file exists without its database: a new database must not inherit it.
    case orphanedFile(path: String)
    /// A file-system operation failed.
    case io(path: String, operation: IOOperation, errno: Int32)
    /// SQLite reported an error while the keystore was in use.
    case database(path: String, resultCode: Int32, message: String)
    /// A sealed record failed AES-GCM authentication or does not match its lookup keys.
    case recordAuthenticationFailed(path: String)
    /// A record is authentic but this build cannot decode it (it was written by a newer build).
    case recordUnreadable(path: String)
    /// Another open keystore holds the directory's lock (hardening F2); `holder` is its pid when known.
    case inUse(directory: String, holder: Int32?)
    /// The device-state row (PIN, retry counters) of a keystore that writes it at creation is gone (hardening F3).
    case deviceStateMissing(database: String)
    /// A secret file that other users can read or write (hardening F7); `mode` is its permission bits.
    case exposedFile(path: String, mode: UInt32)
    /// A keystore directory that other users can write to (hardening F7).
    case exposedDirectory(path: String, mode: UInt32)
    /// The directory is on a read-only file system: the keystore could be read but never written.
    case readOnly(directory: String)
    /// The database file was deleted or replaced while open: what is written now would be lost with it.
    case deleted(path: String)
    /// The file system is full (SQLite's SQLITE_FULL): the write was not made.
    case diskFull(path: String)
    /// The keystore was closed.
    case closed

    /// What is wrong with a keystore header.
    public enum HeaderDamage: String, Error, Sendable, Equatable {
        case missingHeaderRow = "the header row is missing"
        case unknownProtection = "the key protection mode is unknown"
        case invalidScryptParameters = "the scrypt parameters are out of range"
        case malformedWrappedKey = "the wrapped data key is malformed"
        case missingTables = "tables are missing"
    }

    /// The file-system operation that failed.
    public enum IOOperation: String, Sendable, Equatable {
        case createDirectory = "create the directory"
        case read = "read"
        case write = "write"
        case rename = "rename"
        case sync = "flush to disk"
        case remove = "remove"
        case lock = "lock"
        /// Putting a finished file in place without replacing one already there (link(2)).
        case install = "create"
    }

    public var description: String {
        switch self {
        case .wrongPassphrase(let database):
            return
                "The passphrase does not unlock the keystore \(database). Nothing was changed; check --passphrase-file or PASSKEYD_PASSPHRASE."
        case .passphraseRequired(let database):
            return
                "The keystore \(database) is protected by a passphrase; give it with --passphrase-file or PASSKEYD_PASSPHRASE."
        case .passphraseNotExpected(let database):
            return
                "The keystore \(database) is protected by its key file, not by a passphrase; start without --passphrase-file and PASSKEYD_PASSPHRASE."
        case .emptyPassphrase:
            return "The passphrase is empty; give a non-empty passphrase or none to use a key file."
        case .missingKeyFile(let path, let database):
            return
                "The key file \(path) of the keystore \(database) is missing, so its credentials cannot be decrypted. Restore the key file; the keystore was left untouched."
        case .keyFileWrongSize(let path, let size):
            return
                "The key file \(path) holds \(size) bytes instead of 32: it is not a passkeyd key file. The keystore was left untouched."
        case .keyFileMismatch(let path, let database):
            return
                "The key file \(path) does not unlock the keystore \(database): it belongs to another keystore. The keystore was left untouched."
        case .notAKeystore(let path):
            return
                "\(path) is not a passkeyd keystore (a foreign or damaged file). It was left untouched; move it away or choose another directory."
        case .corruptHeader(let path, let reason):
            return
                "\(path) is a passkeyd keystore but its header is damaged (\(reason.rawValue)). It was left untouched."
        case .schemaNewer(let path, let unknown):
            return
                "The keystore \(path) was written by a newer passkeyd (schema steps \(unknown.joined(separator: ", ")) are unknown to this build); upgrade passkeyd to open it. It was left untouched."
        case .orphanedFile(let path):
            return
                "\(path) exists but its database does not; a new keystore will not be created next to it. Move it away if the keystore was deleted on purpose."
        case .io(let path, let operation, let errno):
            return "Could not \(operation.rawValue) \(path): \(String(cString: strerror(errno)))."
        case .database(let path, let code, let message):
            return "The keystore \(path) reported SQLite error \(code): \(message)."
        case .recordAuthenticationFailed(let path):
            return
                "A sealed record in the keystore \(path) failed authentication: the file was modified or damaged. The record was not used."
        case .recordUnreadable(let path):
            return
                "A record in the keystore \(path) is authentic but this build cannot read it; it was probably written by a newer passkeyd."
        case .inUse(let directory, let holder):
            let who = holder.map { "another passkeyd (pid \($0))" } ?? "another passkeyd"
            return
                "The keystore folder \(directory) is in use by \(who). Stop that daemon first, or give this one another --data-dir; nothing was changed."
        case .deviceStateMissing(let database):
            return
                "The device state (PIN and retry counters) of the keystore \(database) is missing while the keystore was made with one: the file was modified. It was left untouched; restore it from a backup, or move it away to start a new keystore."
        case .exposedFile(let path, let mode):
            return
                "The key file \(path) is accessible by other users (mode \(Self.octal(mode))), so it was not used. Make it private with: chmod 600 \(path)"
        case .exposedDirectory(let path, let mode):
            return
                "The keystore folder \(path) is writable by other users (mode \(Self.octal(mode))), who could replace its files, so it was not used. Fix it with: chmod 700 \(path)"
        case .readOnly(let directory):
            return
                "The keystore folder \(directory) is on a read-only file system; passkeyd must write there (registrations, PIN retries, signature counters). Remount it read-write or give another --data-dir; nothing was changed."
        case .deleted(let path):
            return
                "The keystore \(path) was deleted or replaced while passkeyd had it open; nothing more is written to it. Restart passkeyd to start a new keystore there, or restore the file first."
        case .diskFull(let path):
            return
                "The file system holding the keystore \(path) is full; the change was not stored and nothing stored before was touched. Free some space."
        case .closed:
            return "The keystore is closed."
        }
    }
}

extension KeystoreError {
    /// Permission bits as `ls` and `chmod` write them, e.g. 0644.
    public static func octal(_ mode: UInt32) -> String {
        let digits = String(mode & 0o7777, radix: 8)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }
}

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif
