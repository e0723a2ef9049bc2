import Foundation

/// A folder `passkeyctl browser install` writes into: created (mode 700) when missing, refused
/// when another user could change what is in it, since a browser runs whatever a host manifest
/// there names.
struct OwnFolder: Sendable {
    let path: String

    /// Creates the folder and its missing parents (700), then checks the folder itself.
    static func prepare(_ path: String) throws(Failure) -> OwnFolder {
        do {
            try FileManager.default.createDirectory(
                atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw .refused("Cannot create \(path): \(error.localizedDescription)")
        }
        var info = stat()
        guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else {
            throw .refused("\(path) is not a real folder (a symlink?); remove it and install again.")
        }
        guard info.st_uid == getuid() else {
            throw .refused(
                "\(path) belongs to uid \(info.st_uid), not to you (uid \(getuid())): a host manifest there is not yours to trust."
            )
        }
        guard info.st_mode & 0o022 == 0 else {
            throw .refused(
                "\(path) can be written by other users, who could replace the host; chmod go-w \(path) and install again."
            )
        }
        return OwnFolder(path: path)
    }

    /// Writes `text` to `name` in the folder atomically (a new file renamed over the old one,
    /// so a symlink in its place is replaced, never followed), with `mode`.
    func write(_ text: String, to name: String, mode: mode_t) throws(Failure) {
        let target = path + "/" + name
        let temporary = path + "/." + name + ".\(getpid()).new"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode)
        guard descriptor >= 0 else { throw .refused("Cannot write \(temporary): \(String(cString: strerror(errno))).") }
        let bytes = Array(text.utf8)
        let wrote = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
        let synced = fchmod(descriptor, mode) == 0 && fsync(descriptor) == 0
        close(descriptor)
        guard wrote == bytes.count, synced, rename(temporary, target) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporary)
            throw .refused("Cannot write \(target): \(reason).")
        }
    }
}
