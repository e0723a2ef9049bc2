import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The files of one keystore directory, and the few POSIX operations on them
/// that must be durable (fsync of files and of the directory after a rename).
struct KeystoreLayout: Sendable {
    let directory: String

    var database: String { directory + "/" + Keystore.databaseFileName }
    var keyFile: String { directory + "/" + Keystore.keyFileName }
    var recordLog: String { directory + "/" + RecordLog.fileName }
    /// Where a new database is built before it is renamed into place, so a crash
    /// during creation never leaves a half-made `keystore.sqlite`.
    var databaseUnderConstruction: String { database + ".creating" }

    init(directory: String) {
        var directory = directory
        while directory.count > 1 && directory.hasSuffix("/") { directory.removeLast() }
        self.directory = directory
    }

    static func exists(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0
    }

    /// Creates the directory (and missing parents) with mode 0700; an existing one is left
    /// as it is, unless others can write to it: they could swap the database or the key
    /// file for their own, so it is refused (as ssh refuses such a ~/.ssh).
    func ensureDirectory() throws(KeystoreError) {
        var info = stat()
        if stat(directory, &info) == 0 {
            guard (info.st_mode & S_IFMT) == S_IFDIR else {
                throw .io(path: directory, operation: .createDirectory, errno: ENOTDIR)
            }
            guard info.st_mode & (S_IWGRP | S_IWOTH) == 0 else {
                throw .exposedDirectory(path: directory, mode: UInt32(info.st_mode & 0o7777))
            }
            return
        }
        var built = directory.hasPrefix("/") ? "" : "."
        for component in directory.split(separator: "/") {
            built += "/" + component
            if mkdir(built, 0o700) != 0 && errno != EEXIST {
                throw .io(path: built, operation: .createDirectory, errno: errno)
            }
        }
    }

    /// Refuses a directory on a read-only file system before SQLite would fail on it with
    /// a less telling error: a keystore that cannot record a signature counter or a PIN
    /// retry must not serve.
    func refuseReadOnly() throws(KeystoreError) {
        var info = statvfs()
        guard statvfs(directory, &info) == 0 else { throw .io(path: directory, operation: .read, errno: errno) }
        if info.f_flag & UInt(ST_RDONLY) != 0 { throw .readOnly(directory: directory) }
    }

    /// Flushes the directory entry table, so a rename or a new file survives power loss.
    func syncDirectory() throws(KeystoreError) {
        let fd = open(directory, O_RDONLY | O_DIRECTORY)
        guard fd >= 0 else { throw .io(path: directory, operation: .sync, errno: errno) }
        defer { close(fd) }
        guard fsync(fd) == 0 else { throw .io(path: directory, operation: .sync, errno: errno) }
    }

    /// Removes a file if it exists.
    static func remove(_ path: String) throws(KeystoreError) {
        if unlink(path) != 0 && errno != ENOENT { throw .io(path: path, operation: .remove, errno: errno) }
    }

    /// Creates an empty file of mode 0600; an empty file is a valid new SQLite database.
    static func createEmptyPrivateFile(_ path: String) throws(KeystoreError) {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0o600)
        guard fd >= 0 else { throw .io(path: path, operation: .write, errno: errno) }
        close(fd)
    }

    /// Gives the finished file `from` its final name `to`, failing with EEXIST rather than
    /// replacing a file already there: link(2), then unlink of the temporary name. A crash
    /// in between leaves the temporary name as a second link, removed by the next creation.
    static func move(_ from: String, to: String) throws(KeystoreError) {
        guard link(from, to) == 0 else { throw .io(path: to, operation: .install, errno: errno) }
        try remove(from)
    }
}
