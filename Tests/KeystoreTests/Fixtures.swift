import Authenticator
import CTAP
import Crypto
import Foundation
import GRDB
import Testing

@testable import Keystore

/// A fresh directory under the system temporary directory, removed by `remove()`.
struct TemporaryDirectory {
    let path: String

    init() {
        var template = Array((NSTemporaryDirectory() + "/keystore-test-XXXXXX").utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        precondition(made != nil, "mkdtemp failed")
        path = String(cString: template.withUnsafeBufferPointer { $0.baseAddress! })
    }

    /// The keystore directory inside this one (not created: `Keystore.open` creates it).
    var store: String { path + "/store" }
    var database: String { store + "/" + Keystore.databaseFileName }
    var keyFile: String { store + "/" + Keystore.keyFileName }

    func remove() { try? FileManager.default.removeItem(atPath: path) }
}

/// A cheap scrypt cost so passphrase tests stay fast; the format stores whatever cost was used.
let testScrypt = ScryptParameters(logN: 10, r: 8, p: 1)

func openStore(
    _ directory: String, passphrase: String? = nil, capacity: Int = Keystore.defaultCapacity,
    off: SpeedMechanisms = .turnedOffByEnvironment
) throws(KeystoreError) -> Keystore {
    try Keystore.open(
        directory: directory, passphrase: passphrase, capacity: capacity, newStoreScrypt: testScrypt, off: off)
}

/// A credential whose every field is distinct and recognisable.
func makeCredential(
    rp: String = "example.com", userHandle: [UInt8] = [1, 2, 3, 4], name: String? = "alice",
    displayName: String? = "Alice Example", id: [UInt8]? = nil,
    createdAt: Date = Date(timeIntervalSince1970: 1_700_000_000.125)
) -> CredentialSource {
    CredentialSource(
        id: id ?? Array(SymmetricKey(size: .bits128).withUnsafeBytes { Array($0) }),
        rp: PublicKeyCredentialRpEntity(id: rp, name: "RP \(rp)"),
        user: PublicKeyCredentialUserEntity(id: userHandle, name: name, displayName: displayName),
        algorithm: .es256,
        privateKey: Array(SymmetricKey(size: .bits256).withUnsafeBytes { Array($0) }),
        signCount: 7, createdAt: createdAt, credProtect: 2)
}

/// Leaves `write`'s commit in the WAL of a closed keystore, as a crash would: it commits
/// through a plain SQLite connection, the database and its WAL are copied while that
/// connection is open and put back once it closed (the last connection to close a WAL
/// database checkpoints the WAL and deletes it). An open keystore keeps its file locked
/// (`locking_mode = EXCLUSIVE`), so no connection can hold the WAL in place beside it.
func leaveInWAL(_ database: String, _ write: (Database) throws -> Void) throws {
    let raw = try DatabaseQueue(path: database)
    try raw.write(write)
    let files = try [database, database + "-wal"].map { path in
        (path, try #require(FileManager.default.contents(atPath: path)))
    }
    try raw.close()
    for (path, contents) in files {
        try? FileManager.default.removeItem(atPath: path)
        #expect(
            FileManager.default.createFile(atPath: path, contents: contents, attributes: [.posixPermissions: 0o600]))
    }
    try? FileManager.default.removeItem(atPath: database + "-shm")
}

/// SHA-256 of every file in a directory (recursively), by relative path.
func fileDigests(_ directory: String) -> [String: String] {
    var digests: [String: String] = [:]
    let enumerator = FileManager.default.enumerator(atPath: directory)
    while let relative = enumerator?.nextObject() as? String {
        let full = directory + "/" + relative
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: full, isDirectory: &isDirectory), !isDirectory.boolValue,
            let data = FileManager.default.contents(atPath: full)
        else { continue }
        digests[relative] = SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined()
    }
    return digests
}

/// Whether `needle` occurs anywhere in the bytes of `path`.
func file(_ path: String, contains needle: [UInt8]) -> Bool {
    guard let data = FileManager.default.contents(atPath: path), !needle.isEmpty else { return false }
    return data.range(of: Data(needle)) != nil
}

func permissions(_ path: String) -> Int {
    ((try? FileManager.default.attributesOfItem(atPath: path)[.posixPermissions]) as? NSNumber)?.intValue ?? -1
}

/// Runs `body`, which must throw exactly `expected`.
func expectError(_ expected: KeystoreError, _ body: () throws -> Void) {
    do {
        try body()
        Issue.record("expected \(expected), got success")
    } catch let error as KeystoreError {
        #expect(error == expected)
    } catch {
        Issue.record("expected \(expected), got \(error)")
    }
}

/// How a store operation failed: `.full`, a refusal's status, or the keystore's own error
/// under `.failed` (what the authenticator logs and answers CTAP1_ERR_OTHER for).
enum StoreOutcome: Equatable {
    case succeeded, full
    case refused(CTAPStatus)
    case failed(KeystoreError?)
    /// Not a `CredentialStoreError` at all: the protocol's promise broken.
    case untyped

    init(_ body: () async throws -> Void) async {
        do {
            try await body()
            self = .succeeded
        } catch {
            guard let error = error as? CredentialStoreError else {
                self = .untyped
                return
            }
            switch error {
            case .full: self = .full
            case .refused(let status): self = .refused(status)
            case .failed(let cause): self = .failed(cause as? KeystoreError)
            }
        }
    }
}

/// A credential with every optional field set, a key of another algorithm than ES256 and a
/// date with a fraction of a second: what a record's encodings must keep exactly.
func credentialWithEveryField(backedUp: Bool = true) -> CredentialSource {
    var credential = CredentialSource(
        id: Array(0..<48), rp: PublicKeyCredentialRpEntity(id: "every.example", name: "Every Field"),
        user: PublicKeyCredentialUserEntity(id: [0, 0xFF, 7], name: "ü", displayName: "User Ü"),
        algorithm: .edDSA, privateKey: Array(repeating: 0xA5, count: 32), signCount: .max,
        createdAt: Date(timeIntervalSince1970: 1_700_000_000.123_456_789), credProtect: 3, hmacSecret: true,
        largeBlobKey: Array(repeating: 1, count: 32), credBlob: [], thirdPartyPayment: false)
    credential.backup = BackupFlags(eligible: true, backedUp: backedUp)
    credential.countsSignatures = false
    credential.application = Array(repeating: 0x5A, count: 32)
    return credential
}

/// Saves each credential from a task of its own, as from several connections: each is expected
/// visible to the next call at once, before any flush, and each task then awaits `durable()`.
func saveConcurrently(_ credentials: [CredentialSource], to store: Keystore) async throws {
    try await withThrowingTaskGroup(of: Void.self) { group in
        for credential in credentials {
            group.addTask {
                try await store.save(credential)
                #expect(try await store.credential(id: credential.id) == credential)
                try await store.durable()
            }
        }
        try await group.waitForAll()
    }
}
