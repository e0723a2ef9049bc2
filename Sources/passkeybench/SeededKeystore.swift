import Authenticator
import CTAP
import Crypto
import Foundation
import Keystore

/// A keystore holding `population` resident credentials, exactly one of them for
/// `BenchRequests.signInRP`, the rest spread over 1 000 other RPs.
///
/// A store is seeded once with `Keystore.importCredentials` (10 000 credentials per
/// transaction; the filler credentials share one private key, since none of them ever
/// signs), on tmpfs where there is one, copied into `cacheDirectory`, and copied again
/// into each run's working directory so the daemon's writes never touch the cached copy.
struct SeededKeystore {
    let population: Int
    let cacheDirectory: String

    /// Written last: a cache entry without it was interrupted and is rebuilt.
    static let stampName = "seeded"
    static let fillerRPCount = 1_000
    var directory: String { cacheDirectory + "/keystore-\(population)" }
    /// v5: the schema with the record log's table (migration `v4-record-log`), so a working
    /// copy opens as a daemon's own store does, without migrating (v4: records sealed with
    /// their row's hashes as associated data; v3: the binary encoding and the count kept by
    /// triggers); a store seeded before is seeded again. A closed store's record log is clear,
    /// so the database and the key file are the whole store.
    var stamp: String { "passkeybench seed v5 population=\(population)\n" }
    static let batchSize = 10_000

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
        try await store.durable()
        let fillerKey = Array(P256.Signing.PrivateKey().rawRepresentation)
        for start in stride(from: 1, to: population, by: Self.batchSize) {
            let batch = (start..<min(start + Self.batchSize, population)).map { index in
                Self.credential(
                    rp: PublicKeyCredentialRpEntity(id: "rp\(index % Self.fillerRPCount).filler.example"),
                    user: UInt64(index), privateKey: fillerKey)
            }
            try await store.importCredentials(batch)
            if (start - 1 + batch.count) % 100_000 == 0 {
                progress(
                    "seeding \(population): \(start - 1 + batch.count) credentials after \(Int((clock.now - began).seconds)) s"
                )
            }
        }
        try await store.close()
        progress(
            "seeded \(population) credentials in \(String(format: "%.1f", (clock.now - began).seconds)) s (on \(scratchParent))"
        )

        try Self.makePrivateDirectory(cacheDirectory)
        try Self.makePrivateDirectory(directory)
        for file in [Keystore.databaseFileName, Keystore.keyFileName] {
            try fileManager.copyItem(atPath: scratch + "/" + file, toPath: directory + "/" + file)
        }
        try stamp.write(toFile: directory + "/" + Self.stampName, atomically: true, encoding: .utf8)
    }

    static func credential(
        rp: PublicKeyCredentialRpEntity, user: UInt64,
        privateKey: [UInt8] = Array(P256.Signing.PrivateKey().rawRepresentation)
    ) -> CredentialSource {
        let handle = withUnsafeBytes(of: user.bigEndian) { Array($0) }
        return CredentialSource(
            id: Array(SymmetricKey(size: .bits128).withUnsafeBytes { Array($0) }), rp: rp,
            user: PublicKeyCredentialUserEntity(id: handle, name: "user\(user)", displayName: "User \(user)"),
            algorithm: .es256, privateKey: privateKey)
    }

    /// Keystore directories are 0700 (docs/keystore.md).
    static func makePrivateDirectory(_ path: String) throws {
        try FileManager.default.createDirectory(
            atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    }
}
