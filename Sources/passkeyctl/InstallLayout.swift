import Foundation

/// Where an installed passkeyd keeps the files passkeyctl hands to other programs, found from
/// passkeyctl's own place (`<prefix>/bin/passkeyctl`), so one lookup serves every way of
/// installing it: the .deb (`/usr`, Debian's multiarch library folder), the tarball's
/// `install.sh --prefix`, and `make install` (`<prefix>/lib/passkeyd`). docs/packaging.md lists them.
enum InstallLayout {
    /// Debian's multiarch tuple for this build's architecture (Debian Policy §9.1.1, the
    /// `DEB_HOST_MULTIARCH` of dpkg-architecture): the .deb puts libraries in `/usr/lib/<tuple>/`.
    static var multiarch: String {
        #if arch(x86_64)
            "x86_64-linux-gnu"
        #elseif arch(arm64)
            "aarch64-linux-gnu"
        #elseif arch(i386)
            "i386-linux-gnu"
        #elseif arch(arm)
            "arm-linux-gnueabihf"
        #elseif arch(riscv64)
            "riscv64-linux-gnu"
        #elseif arch(powerpc64le)
            "powerpc64le-linux-gnu"
        #elseif arch(s390x)
            "s390x-linux-gnu"
        #else
            "unknown-linux-gnu"
        #endif
    }

    /// The folder this executable runs from, symbolic links resolved.
    static var binDirectory: URL {
        URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
    }

    /// passkeyd's library folders under the prefix, in the order they are searched: the packages'
    /// `lib/<multiarch>/passkeyd`, then `make install`'s `lib/passkeyd`.
    static func libraryFolders(binDirectory: URL = binDirectory) -> [String] {
        let prefix = binDirectory.deletingLastPathComponent()
        return ["lib/\(multiarch)/passkeyd", "lib/passkeyd"].map { prefix.appendingPathComponent($0).standardized.path }
    }

    /// The unpacked browser extension an install ships (`<prefix>/share/passkeyd/browser-extension`),
    /// else the source tree's (`integrations/browser/extension` above a `.build*` folder), else nil.
    static func browserExtension(binDirectory: URL = binDirectory) -> String? {
        var candidates = [
            binDirectory.deletingLastPathComponent().appendingPathComponent("share/passkeyd/browser-extension")
                .standardized.path
        ]
        if let tree = sourceTree(binDirectory: binDirectory) {
            candidates.append(tree.appendingPathComponent("integrations/browser/extension").path)
        }
        return candidates.first { FileManager.default.fileExists(atPath: $0 + "/manifest.json") }
    }

    /// The source tree this executable was built in: the folder holding its `.build` (or
    /// `.build-release`, …) folder, when it runs from there.
    static func sourceTree(binDirectory: URL = binDirectory) -> URL? {
        var folder = binDirectory
        while folder.path != "/" {
            if folder.lastPathComponent.hasPrefix(".build") {
                return folder.deletingLastPathComponent()
            }
            folder = folder.deletingLastPathComponent()
        }
        return nil
    }
}
