import Foundation

/// The package's built executables, found where SwiftPM put them: `swift build
/// --show-bin-path` for the configuration these tests were compiled in, asked once per
/// test process.
public enum BuiltProducts {
    /// The package root: this file is `Tests/Support/BuiltProducts.swift`.
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    #if DEBUG
        static let configuration = "debug"
    #else
        static let configuration = "release"
    #endif

    /// Computed on first use; a `static let` initialiser runs once, even with tests in parallel.
    static let binPath: Result<URL, FixtureError> = {
        do {
            // --ignore-lock: `swift test` holds the build folder's lock while the tests run.
            let run = try ProcessRun.runBlocking(
                URL(fileURLWithPath: "/usr/bin/env"),
                [
                    "swift", "build", "--package-path", packageRoot.path, "-c", configuration, "--show-bin-path",
                    "--ignore-lock"
                ])
            guard run.status == 0,
                let line = run.stdout.split(separator: "\n").last.map(String.init), line.hasPrefix("/")
            else {
                return .failure(
                    FixtureError("`swift build --show-bin-path` failed (\(run.status)): \(run.stderr)\(run.stdout)"))
            }
            return .success(URL(fileURLWithPath: line, isDirectory: true))
        } catch let error as FixtureError {
            return .failure(error)
        } catch {
            return .failure(FixtureError("\(error)"))
        }
    }()

    /// The executable product `name`, which must already be built.
    public static func executable(_ name: String) throws -> URL {
        let url = try binPath.get().appendingPathComponent(name)
        guard FileManager.default.isExecutableFile(atPath: url.path) else {
            throw FixtureError(
                "\(name) is not built in \(url.deletingLastPathComponent().path); run `swift build --build-tests` first"
            )
        }
        return url
    }
}
