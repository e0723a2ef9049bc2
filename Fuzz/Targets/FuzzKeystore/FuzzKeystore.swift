import Authenticator
import CTAP
import Foundation
import FuzzSupport
import LibFuzzerDriver
import Keystore

/// The keystore opening damaged files: `Keystore.open` must throw a `KeystoreError` or open,
/// and an opened store must answer every read with its records or a `KeystoreError`, never trap.
///
/// A seed store (key-file protection, three credentials, device state) is written once; each
/// input then rebuilds a keystore directory from it. The first byte picks the damage:
/// 0, the rest is the key file (32 bytes) then the database, both verbatim;
/// 1, the rest is patches on the seed database, 4 bytes each: a 24-bit offset (modulo the
///    file's size) and a byte XORed in there;
/// 2, the rest replaces the seed's key file;
/// 3, the rest is a `-wal` file beside the seed database;
/// 4, the seed as a crash left it (database, WAL, and a record log whose entries replay has
///    yet to apply), the rest patches on the record log as in 1: its parser and replay.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzKeystore(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    var input = FuzzInput(start, count)
    let damage = input.byte() % 5
    let rest = input.rest
    var database = seed.database
    var keyFile = seed.keyFile
    var wal: [UInt8]?
    var log: [UInt8]?
    switch damage {
    case 0:
        keyFile = Array(rest.prefix(32))
        database = Array(rest.dropFirst(32))
    case 1:
        patch(&database, with: rest)
    case 2:
        keyFile = rest
    case 3:
        wal = rest
    default:
        (database, wal, log) = (seed.crashed.database, seed.crashed.wal, seed.crashed.log)
        patch(&log!, with: rest)
    }
    let directory = seed.scratch
    try? FileManager.default.removeItem(atPath: directory)
    write(database, to: directory + "/" + Keystore.databaseFileName)
    write(keyFile, to: directory + "/" + Keystore.keyFileName)
    if let wal { write(wal, to: directory + "/" + Keystore.databaseFileName + "-wal") }
    if let log { write(log, to: directory + "/keystore.log") }
    guard let keystore = try? Keystore.open(directory: directory) else { return 0 }
    waitFor { await readEverything(keystore) }
    return 0
}

/// Every read the authenticator makes; each must give records or fail as the store's
/// `.failed` with a `KeystoreError` cause (a read is never "full" or "refused"), and
/// closing gives nothing or a `KeystoreError`.
private func readEverything(_ keystore: Keystore) async {
    func check<T>(_ read: () async throws -> T) async {
        do { _ = try await read() } catch {
            if case CredentialStoreError.failed(let cause) = error {
                require(cause is KeystoreError, "a read failed because of \(type(of: cause)), not a KeystoreError")
            } else {
                require(error is KeystoreError, "a read failed with \(error), not the store's .failed(KeystoreError)")
            }
        }
    }
    await check { try await keystore.loadDeviceState() }
    await check { try await keystore.count() }
    await check { try await keystore.allCredentials() }
    await check { try await keystore.credentials(rpID: "example.com") }
    await check { try await keystore.credential(id: Seed.credentialID) }
    await check { try await keystore.close() }
}

/// XORs in the patches of `rest`, 4 bytes each: a 24-bit offset (modulo the file's size) and a byte.
private func patch(_ file: inout [UInt8], with rest: [UInt8]) {
    guard !file.isEmpty else { return }
    for patch in stride(from: 0, to: rest.count - 3, by: 4) {
        let offset = (Int(rest[patch]) << 16 | Int(rest[patch + 1]) << 8 | Int(rest[patch + 2])) % file.count
        file[offset] ^= rest[patch + 3]
    }
}

private func write(_ bytes: [UInt8], to path: String) {
    let directory = (path as NSString).deletingLastPathComponent
    try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true,
                                             attributes: [.posixPermissions: 0o700])
    guard FileManager.default.createFile(atPath: path, contents: Data(bytes), attributes: [.posixPermissions: 0o600]) else {
        fatalError("cannot write \(path)")
    }
}

/// The store every input starts from, made once per process in a fresh temporary directory.
private struct Seed: Sendable {
    static let credentialID: [UInt8] = Array(repeating: 0xC1, count: 16)

    let database: [UInt8]
    let keyFile: [UInt8]
    /// The files as they were before the seed store closed: its registrations only in the log.
    let crashed: (database: [UInt8], wal: [UInt8], log: [UInt8])
    /// The temporary directory, removed when libFuzzer exits.
    let root: String
    /// Where each input's keystore is rebuilt.
    let scratch: String

    init() {
        var template = Array((NSTemporaryDirectory() + "/passkeyd-fuzz-keystore-XXXXXX").utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            fatalError("mkdtemp failed")
        }
        root = String(cString: made)
        let store = root + "/seed"
        atexit { try? FileManager.default.removeItem(atPath: seed.root) }
        let crashed: [[UInt8]] = waitFor {
            do {
                let keystore = try Keystore.open(directory: store)
                try await keystore.saveDeviceState(DeviceState(wrappingKey: Array(repeating: 0x5A, count: 32)))
                for (index, rp) in ["example.com", "example.com", "example.org"].enumerated() {
                    try await keystore.save(CredentialSource(
                        id: index == 0 ? Seed.credentialID : Array(repeating: UInt8(index), count: 16),
                        rp: PublicKeyCredentialRpEntity(id: rp, name: rp),
                        user: PublicKeyCredentialUserEntity(id: [UInt8(index)], name: "user\(index)", displayName: "User \(index)"),
                        algorithm: .es256, privateKey: Array(repeating: 0x11, count: 32), credProtect: 2, hmacSecret: true))
                }
                try await keystore.durable()
                let files = ["", "-wal"].map { store + "/" + Keystore.databaseFileName + $0 } + [store + "/keystore.log"]
                let contents = files.map { FileManager.default.contents(atPath: $0).map(Array.init) ?? [] }
                try await keystore.close()
                return contents
            } catch {
                fatalError("cannot write the seed keystore: \(error)")
            }
        }
        guard let database = FileManager.default.contents(atPath: store + "/" + Keystore.databaseFileName),
              let keyFile = FileManager.default.contents(atPath: store + "/" + Keystore.keyFileName)
        else { fatalError("the seed keystore's files are missing") }
        self.database = Array(database)
        self.keyFile = Array(keyFile)
        guard !crashed[2].isEmpty else { fatalError("the seed keystore's record log is missing") }
        self.crashed = (crashed[0], crashed[1], crashed[2])
        scratch = root + "/input"
    }
}

private let seed = Seed()

/// The executable's entry point as SwiftPM links it (Package.swift): libFuzzer's driver.
@_cdecl("FuzzKeystore_main")
public func fuzzKeystoreMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    passkeyd_fuzzer_main(argc, argv)
}
