import Crypto
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The zero-config key-encryption key: 32 random bytes in a file of mode 0600
/// next to the database. Whoever can read it can decrypt the keystore.
enum KeyFile {
    static let size = 32

    /// Reads the key file of an existing keystore.
    static func load(_ path: String, database: String) throws(KeystoreError) -> SymmetricKey {
        let fd = open(path, O_RDONLY | O_NOFOLLOW)
        guard fd >= 0 else {
            let code = errno
            if code == ENOENT { throw .missingKeyFile(path: path, database: database) }
            throw .io(path: path, operation: .read, errno: code)
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw .io(path: path, operation: .read, errno: errno) }
        guard (info.st_mode & S_IFMT) == S_IFREG, Int(info.st_size) == size else {
            throw .keyFileWrongSize(path: path, size: Int(info.st_size))
        }
        // Whoever reads it decrypts the keystore; whoever writes it can lock us out. Refused as ssh refuses such a key.
        guard info.st_mode & 0o077 == 0 else { throw .exposedFile(path: path, mode: UInt32(info.st_mode & 0o7777)) }
        var bytes = [UInt8](repeating: 0, count: size)
        let count = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress, size) }
        guard count == size else {
            if count < 0 { throw .io(path: path, operation: .read, errno: errno) }
            throw .keyFileWrongSize(path: path, size: count)
        }
        defer { for i in bytes.indices { bytes[i] = 0 } }
        return SymmetricKey(data: bytes)
    }

    /// Writes a new random key file durably: a temporary file created exclusively with
    /// mode 0600, fsync, linked into place (never over an existing key file), fsync of the directory.
    static func create(in layout: KeystoreLayout) throws(KeystoreError) -> SymmetricKey {
        let key = SymmetricKey(size: .bits256)
        let temporary = layout.keyFile + ".tmp"
        try KeystoreLayout.remove(temporary)
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0o600)
        guard fd >= 0 else { throw .io(path: temporary, operation: .write, errno: errno) }
        let written = key.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        let writeError = errno
        let synced = written == size && fsync(fd) == 0
        let syncError = errno
        close(fd)
        guard written == size else {
            try? KeystoreLayout.remove(temporary)
            throw .io(path: temporary, operation: .write, errno: written < 0 ? writeError : EIO)
        }
        guard synced else {
            try? KeystoreLayout.remove(temporary)
            throw .io(path: temporary, operation: .sync, errno: syncError)
        }
        do { try KeystoreLayout.move(temporary, to: layout.keyFile) } catch {
            try? KeystoreLayout.remove(temporary)
            throw error
        }
        try layout.syncDirectory()
        return key
    }
}
