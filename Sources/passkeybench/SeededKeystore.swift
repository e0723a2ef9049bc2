import Authenticator
import CTAP
import Crypto
import Foundation
import Keystore

/// A keystore holding `population` resident credentials, exactly one of them for
/// `BenchRequests.signInRP`, the rest spread over 1 000 other RPs.
///
/// `Keystore` has no public bulk insert, and each `save` is its own fsynced
/// transaction that also counts the rows, so filling 100 000 one by one costs
/// minutes. A store is therefore seeded once, on tmpfs where there is one (fsync is
/// free there), copied into `cacheDirectory`, and copied again into each run's
/// working directory so the daemon's writes never touch the cached copy.
struct SeededKeystore {
    let population: Int
    let cacheDirectory: String

    /// Written last: a cache entry without it was interrupted and is rebuilt.
    static let stampName = "seeded"
    static let fillerRPCount = 1_000
    var directory: String { cacheDirectory + "/keystore-\(population)" }
    var stamp: String { "passkeybench seed v1 population=\(population)\n" }

    /// A working copy of the seeded store, seeding it first when the cache lacks it.
    func workingCopy(in workDirectory: String, progress: (String) -> Void) async throws -> String {
        if (try? String(contentsOfFile: directory + "/" + Self.stampName, encoding: .utf8)) != stamp {
            try await seed(progress: progress)
        }
        let copy = workDirectory + "/keystore-\(population)"
        try Self.makePrivateDirectory(copy)
        for file in [Keystore.databaseFileName, Keystore.keyFileName] {
            try FileManager.default.copyItem(atPath: directory + "/" + file, toPath: copy + "/" + file)
        }
        return copy
    }

    private func seed(progress: (String) -> Void) async throws {
        let fileManager = FileManager.default
        try? fileManager.removeItem(atPath: directory)
        let scratchParent = fileManager.isWritableFile(atPath: "/dev/shm") ? "/dev/shm" : cacheDirectory
        let scratch = scratchParent + "/passkeybench-seed-\(getpid())-\(population)"
        try? fileManager.removeItem(atPath: scratch)
        defer { try? fileManager.removeItem(atPath: scratch) }

        let clock = ContinuousClock()
        let began = clock.now
        let store = try Keystore.open(directory: scratch, capacity: max(population, Keystore.defaultCapacity))
        try await store.save(Self.credential(rp: BenchRequests.signInRP, user: 0))
        for index in 1..<population {
            let rp = PublicKeyCredentialRpEntity(id: "rp\(index % Self.fillerRPCount).filler.example")
            try await store.save(Self.credential(rp: rp, user: UInt64(index)))
            if index % 10_000 == 0 {
                progress("seeding \(population): \(index) credentials after \(Int((clock.now - began).seconds)) s")
            }
        }
        try await store.close()
        progress("seeded \(population) credentials in \(String(format: "%.1f", (clock.now - began).seconds)) s (on \(scratchParent))")

        try Self.makePrivateDirectory(cacheDirectory)
        try Self.makePrivateDirectory(directory)
        for file in [Keystore.databaseFileName, Keystore.keyFileName] {
            try fileManager.copyItem(atPath: scratch + "/" + file, toPath: directory + "/" + file)
        }
        try stamp.write(toFile: directory + "/" + Self.stampName, atomically: true, encoding: .utf8)
    }

    static func credential(rp: PublicKeyCredentialRpEntity, user: UInt64) -> CredentialSource {
        let handle = withUnsafeBytes(of: user.bigEndian) { Array($0) }
        return CredentialSource(
            id: Array(SymmetricKey(size: .bits128).withUnsafeBytes { Array($0) }), rp: rp,
            user: PublicKeyCredentialUserEntity(id: handle, name: "user\(user)", displayName: "User \(user)"),
            algorithm: .es256, privateKey: Array(P256.Signing.PrivateKey().rawRepresentation))
    }

    /// Keystore directories are 0700 (docs/keystore.md).
    static func makePrivateDirectory(_ path: String) throws {
        try FileManager.default.createDirectory(
            atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    }
}
