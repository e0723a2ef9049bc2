import Foundation

/// libpasskeyd-preload.so (integrations/preload), which `passkeyctl exec` puts in a program's
/// LD_PRELOAD: where it is, and whether it may be trusted with every libfido2 call.
enum PreloadLibrary {
    static let fileName = "libpasskeyd-preload.so"

    /// `$PASSKEYD_PRELOAD` when set; else next to the install (`<bindir>/../lib/<multiarch>/passkeyd/`
    /// or `<bindir>/../lib/passkeyd/`); else the source tree's build (`integrations/preload/build/`)
    /// above this executable's `.build` folder.
    /// The library is loaded into the programs run, so a file or folder that another user could
    /// have written is refused as the socket's folder is.
    static func find(environment: [String: String] = ProcessInfo.processInfo.environment) throws(Failure) -> String {
        if let explicit = environment["PASSKEYD_PRELOAD"], !explicit.isEmpty {
            let path = absolute(explicit)
            guard FileManager.default.fileExists(atPath: path) else {
                throw .usage(
                    "PASSKEYD_PRELOAD names \(path), which does not exist. Build the library with `make -C integrations/preload` or unset PASSKEYD_PRELOAD."
                )
            }
            try checkTrusted(path)
            return path
        }
        let candidates = searchPath()
        guard let found = candidates.first(where: { FileManager.default.fileExists(atPath: $0) }) else {
            throw .usage(
                "\(fileName) is not installed (looked for \(candidates.joined(separator: " and "))). "
                    + "Install it with `make install`, build it in the source tree with `make -C integrations/preload`, "
                    + "or name it with PASSKEYD_PRELOAD.")
        }
        try checkTrusted(found)
        return found
    }

    /// Where an install or a source tree keeps the library, relative to this executable: the
    /// packages' `<prefix>/lib/<multiarch>/passkeyd/`, `make install`'s `<prefix>/lib/passkeyd/`
    /// (InstallLayout), then the source tree's `integrations/preload/build/`.
    static func searchPath() -> [String] {
        var paths = InstallLayout.libraryFolders().map { "\($0)/\(fileName)" }
        if let tree = InstallLayout.sourceTree() {
            paths.append(tree.appendingPathComponent("integrations/preload/build/\(fileName)").path)
        }
        return paths
    }

    /// The library and its folder belong to us or to root, and nobody else can write them.
    static func checkTrusted(_ path: String) throws(Failure) {
        for item in [path, (path as NSString).deletingLastPathComponent] {
            var st = stat()
            guard stat(item, &st) == 0 else {
                throw .usage("Cannot inspect \(item): \(String(cString: strerror(errno))).")
            }
            let owner = st.st_uid
            let mode = st.st_mode & 0o7777
            if (owner != getuid() && owner != 0) || mode & 0o022 != 0 {
                throw .usage(
                    "Refusing the preload library \(path): \(item) belongs to uid \(owner) or others can write it (mode \(String(mode, radix: 8)))."
                )
            }
        }
    }

    static func absolute(_ path: String) -> String {
        path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
    }
}
