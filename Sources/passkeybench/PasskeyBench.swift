import ArgumentParser
import Authenticator
import Crypto
import Foundation
import Keystore
import Logging
import PasskeyClient
import WebAuthn

/// `make bench`: passkeyd's throughput and latency over its socket, against baselines
/// measured in the same run, printed as a table with the ratios between them.
@main
struct PasskeyBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "passkeybench",
        abstract: "Throughput and latency of passkeyd over its socket, as ratios against in-process baselines.")

    @Option(help: "Seconds each figure runs at most.")
    var duration: Double = 5
    @Option(help: "Operations each figure runs at most (shared by its clients).")
    var operations: Int = 5_000
    @Option(help: "Concurrent clients for the contended socket figures.")
    var clients: Int = 4
    @Option(help: "Resident-credential populations for the discoverable lookup, comma-separated.")
    var populations: String = "10,100000,1000000"
    @Option(help: "The passkeyd executable (default: the one next to passkeybench).")
    var passkeyd: String?
    @Option(
        help:
            "The passkeyctl executable, for the browser extension's native host (default: the one next to passkeybench)."
    )
    var passkeyctl: String?
    @Option(
        name: .customLong("libfido2-bench"),
        help: "scripts/libfido2-bench.c built (scripts/bench.sh does it): a libfido2 client figure.")
    var libfido2Bench: String?
    @Option(name: .customLong("cache-dir"), help: "Where seeded keystores are kept between runs.")
    var cacheDirectory: String = ".build/bench-cache"
    @Option(
        name: .customLong("speed-off"),
        help: ArgumentHelp(
            "Speed mechanisms each measured off too, a daemon of its own per name, comma-separated; empty for none.",
            discussion:
                "Names as PASSKEYD_SPEED_OFF takes them: \(SpeedMechanisms.names.map(\.key).joined(separator: ", ")).",
            valueName: "names"))
    var speedOff: String = SpeedMechanisms.names.map(\.key).joined(separator: ",")

    func validate() throws {
        guard duration > 0, operations > 0, clients > 0 else {
            throw ValidationError("duration, operations and clients must be positive")
        }
        guard !populationSizes.isEmpty, populationSizes.allSatisfy({ $0 > 0 }) else {
            throw ValidationError("--populations takes positive counts, e.g. 10,10000,100000")
        }
        let unknown = SpeedMechanisms.parse(speedOff).unknown
        guard unknown.isEmpty else {
            throw ValidationError(
                "--speed-off names no such mechanism: \(unknown.joined(separator: ", ")); "
                    + "it takes \(SpeedMechanisms.names.map(\.key).joined(separator: ", "))")
        }
    }

    /// Each mechanism `--speed-off` names, in `PASSKEYD_SPEED_OFF`'s spelling.
    var mechanismsOff: [String] {
        SpeedMechanisms.names.filter { SpeedMechanisms.parse(speedOff).off.contains($0.value) }.map(\.key)
    }

    var populationSizes: [Int] {
        populations.split(separator: ",").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }
    }

    var limits: RunLimits { RunLimits(operations: operations, duration: .milliseconds(Int(duration * 1000))) }

    var daemonExecutable: String { passkeyd ?? Self.besideThisProgram("passkeyd") }

    /// passkeyctl, whose `browser host` the extension figures go through.
    var passkeyctlExecutable: String { passkeyctl ?? Self.besideThisProgram("passkeyctl") }

    /// The executable `name` in passkeybench's own folder, where `swift build` puts them all.
    private static func besideThisProgram(_ name: String) -> String {
        let own = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        return own.deletingLastPathComponent().appendingPathComponent(name).path
    }

    func run() async throws {
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = .warning
            return handler
        }
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("passkeybench-\(getpid())").path
        try SeededKeystore.makePrivateDirectory(work)
        defer { try? FileManager.default.removeItem(atPath: work) }

        var results = BenchResults()
        // One counter for the whole run: every registration adds a new account, never a replacement.
        let users = UserCounter()
        printHeader()
        try await runBaselines(into: &results, work: work, users: users)
        try await runSocket(into: &results, work: work, users: users)
        try await runLookups(into: &results, work: work)
        note("libfido2 ...")
        do {
            let daemon = try await BenchDaemon.start(
                executable: daemonExecutable, dataDirectory: work + "/libfido2-keystore", workDirectory: work,
                name: "libfido2")
            defer { daemon.stop() }
            results.libfido2 = Libfido2Client.measure(
                program: libfido2Bench, daemon: daemon, limits: limits, work: work)
        }
        note("Chrome's virtual authenticator ...")
        results.chrome = ChromeVirtualAuthenticator.measure(limits: limits, work: work)
        note("passkeyd through the browser extension, in the same chromium ...")
        results.browserExtension = BrowserExtension.measure(
            limits: limits, passkeyd: daemonExecutable, passkeyctl: passkeyctlExecutable, work: work)
        note("durable-write baseline again ...")
        results.overwriteSyncAtEnd = try await measureDurableWrite(
            .init(path: work + "/sync-overwrite-end", placement: .overwrite))
        print(results.report(clients: clients))
    }

    private func printHeader() {
        let date = ISO8601DateFormatter().string(from: Date())
        let cores = ProcessInfo.processInfo.activeProcessorCount
        print("passkeybench \(date), \(cores) cores, \(ProcessInfo.processInfo.operatingSystemVersionString)")
        print(
            "each figure: at most \(operations) operations or \(BenchTable.figure(duration, decimals: 1)) s, after \(limits.warmup) warm-up operations per client\n"
        )
    }

    /// Progress goes to stderr, so stdout is the report alone.
    private func note(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }

    // MARK: Baselines, in process

    private func runBaselines(into results: inout BenchResults, work: String, users: UserCounter) async throws {
        note("raw P-256 signatures ...")
        let key = P256.Signing.PrivateKey()
        // What an assertion signs: authenticator data (37 bytes) ‖ clientDataHash.
        let message = [UInt8](repeating: 0xA5, count: 37) + BenchRequests.clientDataHash()
        results.rawSign = try await Sampler.measure(limits: limits) { _ in
            _ = try key.signature(for: message)
        }

        note("durable-write baselines ...")
        results.overwriteSync = try await measureDurableWrite(
            .init(path: work + "/sync-overwrite", placement: .overwrite))
        results.appendSync = try await measureDurableWrite(.init(path: work + "/sync-append", placement: .append))

        note("in-process authenticator, memory store ...")
        let memory = InMemoryCredentialStore()
        results.inProcessMemory = try await measureInProcess(store: memory, users: users)

        note("in-process authenticator, Keystore on disk ...")
        let keystore = try Keystore.open(directory: work + "/inprocess-keystore")
        results.inProcessKeystore = try await measureInProcess(store: keystore, users: users)
        try await keystore.close()
    }

    private func measureDurableWrite(_ probe: DurableWriteBaseline) async throws -> Measurement {
        let fd = try probe.createFile()
        defer { close(fd) }
        let pages = PageCounter()
        return try await Sampler.measure(limits: limits) { _ in
            try probe.writeAndSync(fd, index: await pages.next())
        }
    }

    private func measureInProcess(store: any CredentialStore, users: UserCounter) async throws -> BenchResults.Pair {
        let authenticator = Authenticator(store: store, presence: ScriptedPresence.always(.approved))
        let client = BenchClient(transport: InProcessTransport(device: authenticator))
        return try await measurePair(clients: [client], count: 1, users: users).0
    }

    /// makeCredential (rk) then getAssertion, from `count` of `clients`. The sign-in RP gets
    /// its one credential first, so each assertion signs with exactly one resident key.
    /// `around`: a baseline measured right before and right after the registrations, pooled.
    private func measurePair(
        clients all: [BenchClient], count: Int, users: UserCounter, threads: [ClientThread]? = nil,
        around baseline: DurableWriteBaseline? = nil
    ) async throws -> (BenchResults.Pair, Measurement?) {
        let before = if let baseline { try await measureDurableWrite(baseline) } else { nil as Measurement? }
        let makeCredential = try await Sampler.measure(clients: count, limits: limits, threads: threads) { client in
            let user = await users.next()
            try await all[client].makeCredential(
                BenchRequests.makeCredential(rp: BenchRequests.registrationRP(user: user), user: user))
        }
        let after = if let baseline { try await measureDurableWrite(baseline) } else { nil as Measurement? }
        try await all[0].makeCredential(BenchRequests.makeCredential(rp: BenchRequests.signInRP, user: 0))
        let request = BenchRequests.getAssertion(rpID: BenchRequests.signInRP.id)
        let getAssertion = try await Sampler.measure(clients: count, limits: limits, threads: threads) { client in
            try await all[client].getAssertion(request)
        }
        let bracket = before.flatMap { before in after.map { Measurement(pooling: [before, $0]) } }
        return (BenchResults.Pair(getAssertion: getAssertion, makeCredential: makeCredential), bracket)
    }

    // MARK: Over the socket

    private func runSocket(into results: inout BenchResults, work: String, users: UserCounter) async throws {
        let daemon = try await BenchDaemon.start(
            executable: daemonExecutable, dataDirectory: work + "/socket-keystore", workDirectory: work, name: "socket")
        defer { daemon.stop() }
        results.socketReady = daemon.readyAfter
        let transports = (0..<max(clients, 1)).map { _ in UnixSocketTransport(path: daemon.socket) }
        let benchClients = transports.map(BenchClient.init(transport:))
        // Several clients are hosts of their own, as separate processes would be (`ClientThread`);
        // one client has the cooperative pool to itself.
        let threads = (0..<max(clients, 1)).map { ClientThread(name: "passkeybench client \($0)") }
        defer { for thread in threads { thread.stop() } }
        note("socket, 1 client, between append+fdatasync baselines ...")
        (results.socketOne, results.appendSyncAroundOne) = try await measurePair(
            clients: benchClients, count: 1, users: users,
            around: .init(path: work + "/sync-append-one", placement: .append))
        note("socket, \(clients) clients, between append+fdatasync baselines ...")
        (results.socketMany, results.appendSyncAroundMany) = try await measurePair(
            clients: benchClients, count: clients, users: users, threads: threads,
            around: .init(path: work + "/sync-append-many", placement: .append))
        note("WebAuthn ceremonies through PasskeyClient ...")
        guard let suffixes = PublicSuffixList.system() else { throw BenchError.noPublicSuffixList }
        let ceremonies = WebAuthnCeremonies(transport: transports[0], suffixes: suffixes)
        let create = try await Sampler.measure(limits: limits) { _ in
            try await ceremonies.create(user: await users.next())
        }
        try await ceremonies.create(user: 0)
        let get = try await Sampler.measure(limits: limits) { _ in try await ceremonies.get() }
        results.webAuthn = BenchResults.Pair(getAssertion: get, makeCredential: create)
        for transport in transports { await transport.close() }

        // The figures above again, each against a daemon with one speed mechanism off:
        // what that mechanism buys (issue 34), in the same run.
        for mechanism in mechanismsOff {
            note("socket, 1 and \(clients) clients, \(SpeedMechanisms.environmentVariable)=\(mechanism) ...")
            let plain = try await BenchDaemon.start(
                executable: daemonExecutable, dataDirectory: work + "/\(mechanism)-off-keystore", workDirectory: work,
                name: "\(mechanism)-off", environment: [SpeedMechanisms.environmentVariable: mechanism])
            defer { plain.stop() }
            let transports = (0..<max(clients, 1)).map { _ in UnixSocketTransport(path: plain.socket) }
            let plainClients = transports.map(BenchClient.init(transport:))
            let (one, _) = try await measurePair(clients: plainClients, count: 1, users: users)
            let (many, _) = try await measurePair(clients: plainClients, count: clients, users: users, threads: threads)
            results.speedOff.append(.init(mechanism: mechanism, one: one, many: many, ready: plain.readyAfter))
            for transport in transports { await transport.close() }
        }

        note("socket, 1 client, busy polling off ...")
        let quiet = try await BenchDaemon.start(
            executable: daemonExecutable, dataDirectory: work + "/no-poll-keystore", workDirectory: work,
            name: "no-poll",
            arguments: ["--busy-poll", "0"])
        defer { quiet.stop() }
        let transport = UnixSocketTransport(path: quiet.socket)
        let client = BenchClient(transport: transport)
        try await client.makeCredential(BenchRequests.makeCredential(rp: BenchRequests.signInRP, user: 0))
        let request = BenchRequests.getAssertion(rpID: BenchRequests.signInRP.id)
        results.socketWithoutBusyPoll = try await Sampler.measure(limits: limits) { _ in
            try await client.getAssertion(request)
        }
        await transport.close()
    }

    // MARK: Discoverable lookup

    private func runLookups(into results: inout BenchResults, work: String) async throws {
        let request = BenchRequests.getAssertion(rpID: BenchRequests.signInRP.id)
        for population in populationSizes {
            let seeded = SeededKeystore(population: population, cacheDirectory: cacheDirectory)
            let directory = try await seeded.workingCopy(in: work, progress: note)
            note("lookup among \(population) resident credentials ...")
            let store: Keystore
            do { store = try Keystore.open(directory: directory) } catch {
                throw BenchError.cacheUnusable(directory: seeded.directory, reason: "\(error)")
            }
            let stored = try await store.count()
            guard stored == population else {
                throw BenchError.cacheUnusable(directory: seeded.directory, reason: "it holds \(stored) credentials")
            }
            let lookup = try await Sampler.measure(limits: limits) { _ in
                let found = try await store.credentials(rpID: BenchRequests.signInRP.id).count
                guard found == 1 else { throw BenchError.unexpectedLookup(population: population, found: found) }
            }
            try await store.close()

            let daemon = try await BenchDaemon.start(
                executable: daemonExecutable, dataDirectory: directory, workDirectory: work,
                name: "lookup-\(population)")
            defer { daemon.stop() }
            let transport = UnixSocketTransport(path: daemon.socket)
            let client = BenchClient(transport: transport)
            let assertion = try await Sampler.measure(limits: limits) { _ in try await client.getAssertion(request) }
            await transport.close()
            results.lookups.append(
                .init(
                    population: population, lookup: lookup, socketGetAssertion: assertion,
                    ready: daemon.readyAfter, residentKiB: daemon.residentKiB()))
        }
    }
}

/// Successive page indexes for the appending durable-write probe.
actor PageCounter {
    private var value = 0
    func next() -> Int {
        value += 1
        return value
    }
}

/// Distinct user handles for registrations, so each makeCredential adds an account.
actor UserCounter {
    private var value: UInt64 = 1_000_000
    func next() -> UInt64 {
        value += 1
        return value
    }
}
