import Foundation

/// A file only its owner can read, for output that may hold private keys: written to a new
/// temporary file (`mkstemp`: `O_EXCL`, mode 600) beside the target, then renamed into place, so
/// no byte ever goes into a file someone else created or linked. An existing target of another
/// owner, with other links, or that is not a regular file is refused before anything is written.
enum PrivateFile {
    static func write(_ text: String, to path: String) throws(Failure) {
        try checkReplaceable(path)
        let url = URL(fileURLWithPath: path)
        let folder = url.deletingLastPathComponent().path
        var template = Array("\(folder)/.\(url.lastPathComponent).XXXXXX".utf8CString)
        let fd = mkstemp(&template)
        guard fd >= 0 else { throw failure(path, "cannot create a file in \(folder)") }
        let temporary = String(cString: template)
        var renamed = false
        defer {
            close(fd)
            if !renamed { unlink(temporary) }
        }
        // mkstemp makes it 600 already; the umask could only narrow that, never widen it.
        guard fchmod(fd, 0o600) == 0 else { throw failure(path, "cannot make it private") }
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let written = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            if written < 0, errno == EINTR { continue }
            guard written > 0 else { throw failure(path, "cannot write") }
            bytes = bytes.dropFirst(written)
        }
        guard fsync(fd) == 0 else { throw failure(path, "cannot write") }
        guard rename(temporary, path) == 0 else { throw failure(path, "cannot put it in place") }
        renamed = true
    }

    /// An existing `path` is replaced only when it is the caller's own regular file with no other
    /// name: another user's file in a shared folder such as /tmp may be read by that user.
    private static func checkReplaceable(_ path: String) throws(Failure) {
        var info = stat()
        guard lstat(path, &info) == 0 else {
            if errno == ENOENT { return }
            throw failure(path, "cannot look at it")
        }
        guard info.st_mode & S_IFMT == S_IFREG else {
            throw .refused("\(path) exists and is not a regular file; nothing was written. Choose a new file name.")
        }
        guard info.st_uid == geteuid() else {
            throw .refused(
                "\(path) exists and belongs to another user (uid \(info.st_uid)), who could read what is written there; nothing was written. Choose a new file name."
            )
        }
        guard info.st_nlink == 1 else {
            throw .refused(
                "\(path) has other names (\(info.st_nlink) links), through which others could read it; nothing was written. Choose a new file name."
            )
        }
    }

    private static func failure(_ path: String, _ what: String) -> Failure {
        .usage("Cannot write \(path): \(what): \(String(cString: strerror(errno))).")
    }
}
