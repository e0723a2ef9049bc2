import Authenticator
import CTAP
import Crypto
import Foundation
import GRDB
import Testing
@testable import Keystore

/// Kill -9 during a burst of registrations: every save that returned is there and
/// usable afterwards, and the database opens without repair.
///
/// The parent test runs this test binary again, filtered to `burstWriterChild`, with
/// `PASSKEYD_KEYSTORE_BURST_DIR` set. The child saves credentials as fast as it can and
/// appends each index to `acks` once `save` and the `durable()` after it have returned —
/// the moment the daemon would send its CTAP response. The parent SIGKILLs it mid-burst, then checks.
@Suite struct KeystoreCrashTests {
    static let burstDirectoryVariable = "PASSKEYD_KEYSTORE_BURST_DIR"
    // More than `RecordLog.entriesPerFold`: the kill comes after at least one fold.
    static let acknowledgementsBeforeKill = 1_500

    static func burstCredential(_ index: Int) -> CredentialSource {
        let seed = withUnsafeBytes(of: UInt64(index).bigEndian) { Array($0) }
        return CredentialSource(
            id: Array(SHA256.hash(data: Array("id".utf8) + seed).prefix(16)),
            rp: PublicKeyCredentialRpEntity(id: "rp\(index % 10).example", name: "RP \(index % 10)"),
            user: PublicKeyCredentialUserEntity(id: seed, name: "user\(index)", displayName: "User \(index)"),
            algorithm: index % 2 == 0 ? .es256 : .edDSA,
            privateKey: Array(SHA256.hash(data: Array("key".utf8) + seed)),
            signCount: 0, createdAt: Date(timeIntervalSince1970: 1_700_000_000 + Double(index)), credProtect: 1)
    }

    /// The child half; it does nothing unless spawned by `acknowledgedWritesSurviveSIGKILL`.
    @Test(.enabled(if: ProcessInfo.processInfo.environment[burstDirectoryVariable] != nil))
    func burstWriterChild() async throws {
        let directory = try #require(ProcessInfo.processInfo.environment[Self.burstDirectoryVariable])
        let store = try openStore(directory + "/store")
        let acks = open(directory + "/acks", O_WRONLY | O_CREAT | O_APPEND, 0o600)
        try #require(acks >= 0)
        for index in 0..<1_000_000 {
            try await store.save(Self.burstCredential(index))
            // The daemon answers a registration only once the flush covering its save is done.
            try await store.durable()
            let line = Array("\(index)\n".utf8)
            // One write(2) per line: what reached the file was acknowledged.
            #expect(line.withUnsafeBytes { write(acks, $0.baseAddress, $0.count) } == line.count)
        }
    }

    @Test func acknowledgedWritesSurviveSIGKILL() async throws {
        let temp = TemporaryDirectory()
        defer { temp.remove() }
        // The store exists before the burst, as it would under a running daemon.
        try await openStore(temp.store).close()

        let child = Process()
        child.executableURL = URL(fileURLWithPath: try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
        child.arguments = ["--testing-library", "swift-testing", "--filter", "KeystoreCrashTests/burstWriterChild"]
        child.environment = ProcessInfo.processInfo.environment.merging([Self.burstDirectoryVariable: temp.path]) { $1 }
        child.standardOutput = FileHandle.nullDevice
        child.standardError = FileHandle.nullDevice
        try child.run()

        // Wait for a good number of acknowledged saves (the deadline only guards against a hung child).
        let deadline = Date().addingTimeInterval(120)
        while acknowledged(temp).count < Self.acknowledgementsBeforeKill && child.isRunning && Date() < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        try #require(child.isRunning, "the burst writer stopped before it was killed")
        kill(child.processIdentifier, SIGKILL)
        child.waitUntilExit()
        #expect(child.terminationReason == .uncaughtSignal)

        let acked = acknowledged(temp)
        try #require(acked.count >= Self.acknowledgementsBeforeKill)
        let store = try openStore(temp.store)
        for index in acked {
            #expect(try await store.credential(id: Self.burstCredential(index).id) == Self.burstCredential(index))
        }
        let rp3 = try await store.credentials(rpID: "rp3.example")
        #expect(rp3.map(\.id) == acked.filter { $0 % 10 == 3 }.reversed().map { Self.burstCredential($0).id }
            || rp3.dropFirst().map(\.id) == acked.filter { $0 % 10 == 3 }.reversed().map { Self.burstCredential($0).id })
        // At most the one save in flight at the kill committed without being acknowledged.
        let stored = try await store.count()
        #expect(stored == acked.count || stored == acked.count + 1)
        // Still writable after the crash.
        try await store.save(Self.burstCredential(999_999))
        try await store.close()

        let raw = try DatabaseQueue(path: temp.database)
        #expect(try await raw.read { try String.fetchAll($0, sql: "PRAGMA integrity_check") } == ["ok"])
        try raw.close()
    }

    /// The indices the child acknowledged, from complete lines only.
    private func acknowledged(_ temp: TemporaryDirectory) -> [Int] {
        guard let data = FileManager.default.contents(atPath: temp.path + "/acks"),
              let text = String(data: data, encoding: .utf8)
        else { return [] }
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        lines.removeLast()  // empty after the final newline, or an incomplete line
        return lines.compactMap { Int($0) }
    }
}
