import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The rule for the folder that holds passkeyd's socket, kept by the daemon before it binds
/// and by every client before it sends a byte: a real directory (not a symlink), owned by
/// the user, that nobody else can write. Otherwise another user could put their own socket
/// there (the `/tmp/passkeyd-$UID` fallback can be created by anyone first) and receive PIN
/// hashes, new PINs and registrations. Reading the folder gives nothing away: the socket is
/// 0600 and the daemon refuses peers of another uid.
public enum SocketFolder {
    public enum Verdict: Sendable, Equatable {
        case trusted
        case missing
        /// A symlink, a file: anything but a real directory.
        case notADirectory
        case ownedByAnother(uid: uid_t)
        /// Group or others may write it (the mode's permission bits).
        case writableByOthers(mode: UInt32)
    }

    /// The folder of `socketPath`.
    public static func folder(of socketPath: String) -> String {
        let folder = (socketPath as NSString).deletingLastPathComponent
        return folder.isEmpty ? "." : folder
    }

    /// Judges the folder of `socketPath` for `uid`, without following a symlink.
    public static func verdict(forFolderOf socketPath: String, uid: uid_t = getuid()) -> Verdict {
        var info = stat()
        guard lstat(folder(of: socketPath), &info) == 0 else { return .missing }
        guard info.st_mode & S_IFMT == S_IFDIR else { return .notADirectory }
        guard info.st_uid == uid else { return .ownedByAnother(uid: info.st_uid) }
        guard info.st_mode & 0o022 == 0 else { return .writableByOthers(mode: UInt32(info.st_mode & 0o7777)) }
        return .trusted
    }

    /// Why a client will not speak to the socket at `socketPath`, as a sentence; nil when it may.
    public static func refusal(forSocket socketPath: String, uid: uid_t = getuid()) -> String? {
        let folder = folder(of: socketPath)
        switch verdict(forFolderOf: socketPath, uid: uid) {
        case .trusted, .missing:
            return nil
        case .notADirectory:
            return "Refusing the socket at \(socketPath): its folder \(folder) is not a real directory (a symlink?)."
        case .ownedByAnother(let owner):
            return
                "Refusing the socket at \(socketPath): its folder \(folder) belongs to uid \(owner), not to you (uid \(uid)); another user may have put it there."
        case .writableByOthers(let mode):
            return
                "Refusing the socket at \(socketPath): its folder \(folder) can be written by other users (mode \(String(mode, radix: 8)))."
        }
    }

    /// Why a client will not speak to a socket served by `peerUID`; nil when it is our own.
    public static func refusal(forSocket socketPath: String, servedBy peerUID: uid_t?, uid: uid_t = getuid()) -> String?
    {
        guard let peerUID else { return "Refusing the socket at \(socketPath): the kernel will not say who serves it." }
        guard peerUID != uid else { return nil }
        return
            "Refusing the socket at \(socketPath): it is served by uid \(peerUID), not by you (uid \(uid)); another user's process is listening there."
    }
}
