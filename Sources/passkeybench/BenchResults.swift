import Keystore

/// Every figure of one run, and the report that sets them side by side.
struct BenchResults {
    /// Decodable as the libfido2 client prints it.
    struct Pair: Decodable {
        var getAssertion: Measurement
        var makeCredential: Measurement
    }

    struct Lookup {
        var population: Int
        /// `Keystore.credentials(rpID:)` for the RP with one credential.
        var lookup: Measurement
        /// A discoverable getAssertion over the socket on that store.
        var socketGetAssertion: Measurement
        /// From the daemon's launch on that store to its first getInfo answer.
        var ready: Duration
        /// The daemon's resident memory after the getAssertion run.
        var residentKiB: Int?
    }

    var rawSign: Measurement?
    /// A 4 KiB page rewritten in place, then fdatasync: the floor of a commit to a reused WAL.
    var overwriteSync: Measurement?
    /// The same, measured again last: on a shared disk, flush latency can change mid-run.
    var overwriteSyncAtEnd: Measurement?
    /// A 4 KiB page appended, then fdatasync: the floor of a commit to a growing WAL.
    var appendSync: Measurement?
    /// The same, measured right before and right after the one-client registrations over the
    /// socket, pooled: their ratio's denominator. On a shared disk the flush latency drifts
    /// within seconds (one run's baselines 4 900–7 100/s); a baseline on both sides of the
    /// figure it divides cancels a drift in either direction.
    var appendSyncAroundOne: Measurement?
    /// The same around the registrations of several clients.
    var appendSyncAroundMany: Measurement?
    var inProcessMemory: Pair?
    var inProcessKeystore: Pair?
    var socketOne: Pair?
    var socketMany: Pair?
    /// One client's sign-ins against a daemon started with `--busy-poll 0`: what busy polling buys.
    var socketWithoutBusyPoll: Measurement?
    /// The socket figures against a daemon with one speed mechanism off (`PASSKEYD_SPEED_OFF`).
    struct SpeedOff {
        /// The mechanism's name in `PASSKEYD_SPEED_OFF`.
        var mechanism: String
        var one: Pair
        var many: Pair
        /// From that daemon's launch on an empty store to its first getInfo answer.
        var ready: Duration
    }

    var speedOff: [SpeedOff] = []
    /// From the socket figures' daemon's launch on an empty store to its first getInfo answer.
    var socketReady: Duration?
    /// `WebAuthnClient` create (rk) and discoverable get over the socket: options JSON in, response JSON out.
    var webAuthn: Pair?
    /// Chrome's virtual authenticator in a localhost page, driven over CDP: nil when skipped.
    var chrome: ChromeVirtualAuthenticator.Outcome?
    /// passkeyd in a localhost page through the extension and `passkeyctl browser host`, and the host alone: nil when skipped.
    var browserExtension: BrowserExtension.Outcome?
    /// The same daemon through libfido2's blocking C client, one connection.
    var libfido2: Libfido2Client.Outcome?
    var lookups: [Lookup] = []

    func report(clients: Int) -> String {
        var sections: [String] = []
        let header = ["figure", "clients", "ops", "ops/s", "p50 ms", "p99 ms", "÷ raw P-256", "ops per client"]
        var rows: [[String]] = []
        func row(_ label: String, _ clients: Int, _ m: Measurement?) {
            guard let m else { return }
            let ratio =
                rawSign.map { BenchTable.figure(m.operationsPerSecond / $0.operationsPerSecond, decimals: 3) } ?? "-"
            let spread = m.perClient.count > 1 ? "\(m.perClient.min() ?? 0)–\(m.perClient.max() ?? 0)" : "-"
            rows.append([
                label, "\(clients)", "\(m.operations)", BenchTable.figure(m.operationsPerSecond),
                BenchTable.milliseconds(m.p50), BenchTable.milliseconds(m.p99), ratio, spread
            ])
        }
        row("raw P-256 ECDSA sign, swift-crypto (baseline)", 1, rawSign)
        row("4 KiB overwrite + fdatasync (baseline)", 1, overwriteSync)
        row("4 KiB append + fdatasync (baseline)", 1, appendSync)
        row("4 KiB append + fdatasync, around 1-client registrations", 1, appendSyncAroundOne)
        row("4 KiB append + fdatasync, around \(clients)-client registrations", 1, appendSyncAroundMany)
        row("4 KiB overwrite + fdatasync, again at the end", 1, overwriteSyncAtEnd)
        row("getAssertion, in-process, memory store", 1, inProcessMemory?.getAssertion)
        row("makeCredential rk, in-process, memory store", 1, inProcessMemory?.makeCredential)
        row("getAssertion, in-process, Keystore", 1, inProcessKeystore?.getAssertion)
        row("makeCredential rk, in-process, Keystore", 1, inProcessKeystore?.makeCredential)
        row("getAssertion over the socket", 1, socketOne?.getAssertion)
        row("getAssertion over the socket", clients, socketMany?.getAssertion)
        row("getAssertion over the socket, --busy-poll 0", 1, socketWithoutBusyPoll)
        row("makeCredential rk over the socket", 1, socketOne?.makeCredential)
        row("makeCredential rk over the socket", clients, socketMany?.makeCredential)
        for off in speedOff {
            let label = "\(SpeedMechanisms.environmentVariable)=\(off.mechanism)"
            row("getAssertion over the socket, \(label)", 1, off.one.getAssertion)
            row("getAssertion over the socket, \(label)", clients, off.many.getAssertion)
            row("makeCredential rk over the socket, \(label)", 1, off.one.makeCredential)
            row("makeCredential rk over the socket, \(label)", clients, off.many.makeCredential)
        }
        row("getAssertion via libfido2 (C, blocking)", 1, libfido2?.figures?.getAssertion)
        row("makeCredential rk via libfido2 (C, blocking)", 1, libfido2?.figures?.makeCredential)
        row("WebAuthn create (rk) via PasskeyClient, socket", 1, webAuthn?.makeCredential)
        row("WebAuthn get (discoverable) via PasskeyClient", 1, webAuthn?.getAssertion)
        row("Chrome virtual authenticator get, in page", 1, chrome?.figures?.get)
        row("Chrome virtual authenticator create, in page", 1, chrome?.figures?.create)
        row("passkeyd get via the extension, in page", 1, browserExtension?.figures?.get)
        row("passkeyd create (rk) via the extension, in page", 1, browserExtension?.figures?.create)
        row("passkeyd get via passkeyctl browser host alone (stdio)", 1, browserExtension?.figures?.hostGet)
        row("get via the extension, a host that answers at once, in page", 1, browserExtension?.figures?.echoGet)
        row("passkeyd create (rk) via passkeyctl browser host alone (stdio)", 1, browserExtension?.figures?.hostCreate)
        sections.append(BenchTable.render(header: header, rows: rows))
        if let socketReady, !speedOff.isEmpty {
            let off = speedOff.map { "\($0.mechanism) off \(BenchTable.figure($0.ready.milliseconds)) ms" }
            sections.append(
                "Daemon ready (launch to its first getInfo answer, empty store): every mechanism on "
                    + "\(BenchTable.figure(socketReady.milliseconds)) ms; " + off.joined(separator: ", ") + ".")
        }
        if let skipped = libfido2?.skipped { sections.append("libfido2: skipped (\(skipped)).") }
        if let skipped = chrome?.skipped { sections.append("Chrome's virtual authenticator: skipped (\(skipped)).") }
        if let skipped = browserExtension?.skipped {
            sections.append("passkeyd through the browser extension: skipped (\(skipped)).")
        }
        if let figures = browserExtension?.figures { sections.append(hops(figures)) }
        if let browser = chrome?.figures?.browser {
            sections.append(
                "Chrome's virtual authenticator: \(browser), headless, CTAP2 with resident keys, presence and UV "
                    + "simulated, navigator.credentials timed inside a page on http://localhost.")
        }
        sections.append(
            """
            The socket figures run against a real passkeyd (--presence auto --uv off, busy polling on its \
            default unless the row says otherwise, Keystore on disk: every answer waits for the flush that makes what it rests on durable). One device serves every \
            channel one transaction at a time (CTAP 2.1 §11.2.9); a client that finds the device busy waits its turn \
            (CTAPHID_ERR_CHANNEL_BUSY only once it has waited 25 ms while the device waits for its user). \(clients) clients are \(clients) hosts, each on a thread of \
            its own, as separate processes would be; with them, registrations share flushes (group commit): the device takes the next transaction while the last one's flush runs.
            """)

        if let first = overwriteSync, let last = overwriteSyncAtEnd {
            let change = last.p50.seconds / max(first.p50.seconds, 1e-9)
            if change > 2 || change < 0.5 {
                sections.append(
                    """
                    WARNING: the disk's flush latency changed \(BenchTable.figure(change, decimals: 1))× during \
                    the run (fdatasync p50 \(BenchTable.milliseconds(first.p50)) ms at the start, \
                    \(BenchTable.milliseconds(last.p50)) ms at the end): figures that wait for the keystore \
                    were taken under different disk load, and ratios between them are unreliable. Run again.
                    """)
            }
        }

        if !lookups.isEmpty {
            let lookupHeader = [
                "resident credentials", "lookups", "lookup p50 ms", "lookup p99 ms",
                "socket getAssertion/s", "p50 ms", "p99 ms", "ready ms", "daemon RSS MiB"
            ]
            let lookupRows = lookups.map { entry in
                [
                    BenchTable.grouped(entry.population), "\(entry.lookup.operations)",
                    BenchTable.milliseconds(entry.lookup.p50), BenchTable.milliseconds(entry.lookup.p99),
                    BenchTable.figure(entry.socketGetAssertion.operationsPerSecond),
                    BenchTable.milliseconds(entry.socketGetAssertion.p50),
                    BenchTable.milliseconds(entry.socketGetAssertion.p99),
                    BenchTable.figure(entry.ready.milliseconds),
                    entry.residentKiB.map { BenchTable.figure(Double($0) / 1024, decimals: 1) } ?? "-"
                ]
            }
            sections.append(
                "Discoverable lookup: Keystore.credentials(rpID:) for an RP holding 1 credential among the population, "
                    + "then a discoverable getAssertion over the socket on the same store (1 client); ready: from the "
                    + "daemon's launch on that store to its first getInfo answer.\n"
                    + BenchTable.render(header: lookupHeader, rows: lookupRows))
        }

        sections.append(
            "Ratios (same run):\n"
                + BenchTable.render(header: ["ratio", "value", "target"], rows: ratios(clients: clients)))
        return sections.joined(separator: "\n\n")
    }

    /// Where a page's sign-in and registration spend their time (p50s of this run): PasskeyClient
    /// in process, then the host's stdio and JSON, then the browser's hops.
    private func hops(_ figures: BrowserExtension.Figures) -> String {
        func step(_ label: String, _ page: Measurement, _ host: Measurement, _ client: Measurement?) -> String {
            let clientPart = client.map { "PasskeyClient alone \(BenchTable.milliseconds($0.p50)) ms; " } ?? ""
            let hostCost =
                client.map {
                    " (+\(BenchTable.milliseconds(host.p50 - $0.p50)) ms: a process, its stdio framing and JSON)"
                } ?? ""
            return "  \(label): \(clientPart)the host over stdio \(BenchTable.milliseconds(host.p50)) ms\(hostCost); "
                + "in the page \(BenchTable.milliseconds(page.p50)) ms (+\(BenchTable.milliseconds(page.p50 - host.p50)) ms: "
                + "page script → content script → service worker → native port, and back)."
        }
        return """
            passkeyd through the browser extension: \(figures.browser), headless, the passkeyd extension and \
            `passkeyctl browser host` on a passkeyd of its own (--presence auto --uv auto), navigator.credentials timed \
            inside a page on http://localhost with the same calls as Chrome's figure. Where the time goes (p50):
            \(step("get", figures.get, figures.hostGet, webAuthn?.getAssertion))
            \(step("create", figures.create, figures.hostCreate, webAuthn?.makeCredential))
              the hops alone: a sign-in in the page with a host that answers at once \(BenchTable.milliseconds(figures.echoGet.p50)) ms\
            \(chrome?.figures.map { "; Chrome's virtual authenticator, whole, \(BenchTable.milliseconds($0.get.p50)) ms" } ?? "").
            """
    }

    private func ratios(clients: Int) -> [[String]] {
        var rows: [[String]] = []
        /// `target`: the issue's goal for this ratio (issue 11), met or not.
        func add(
            _ label: String, _ numerator: Double?, _ denominator: Double?, target: Double? = nil, atMost: Bool = false
        ) {
            guard let numerator, let denominator, denominator > 0 else { return }
            let value = numerator / denominator
            let verdict =
                target.map { goal in
                    let met = atMost ? value <= goal : value >= goal
                    return "\(atMost ? "≤" : "≥") \(BenchTable.figure(goal, decimals: 2)) \(met ? "met" : "NOT met")"
                } ?? ""
            rows.append([label, BenchTable.figure(value, decimals: 3), verdict])
        }
        let raw = rawSign?.operationsPerSecond
        let append = (appendSyncAroundOne ?? appendSync)?.operationsPerSecond
        add(
            "socket getAssertion/s (1 client) ÷ raw P-256 signatures/s", socketOne?.getAssertion.operationsPerSecond,
            raw, target: 0.25)
        add(
            "socket getAssertion/s (1 client) ÷ Chrome virtual authenticator get/s",
            socketOne?.getAssertion.operationsPerSecond, chrome?.figures?.get.operationsPerSecond, target: 5)
        add(
            "socket makeCredential rk/s (1 client) ÷ append+fdatasync/s (around it)",
            socketOne?.makeCredential.operationsPerSecond, append, target: 0.6)
        add(
            "socket makeCredential rk/s (\(clients) clients) ÷ append+fdatasync/s (around it)",
            socketMany?.makeCredential.operationsPerSecond, (appendSyncAroundMany ?? appendSync)?.operationsPerSecond,
            target: 1.5)
        add(
            "passkeyd get/s via the extension ÷ Chrome virtual authenticator get/s, same chromium",
            browserExtension?.figures?.get.operationsPerSecond, chrome?.figures?.get.operationsPerSecond, target: 0.5)
        add(
            "passkeyd create/s via the extension ÷ Chrome virtual authenticator create/s, same chromium",
            browserExtension?.figures?.create.operationsPerSecond, chrome?.figures?.create.operationsPerSecond)
        add(
            "passkeyd get/s via the extension ÷ via the host alone",
            browserExtension?.figures?.get.operationsPerSecond, browserExtension?.figures?.hostGet.operationsPerSecond)
        add(
            "libfido2 getAssertion/s ÷ raw P-256 signatures/s", libfido2?.figures?.getAssertion.operationsPerSecond, raw
        )
        add(
            "libfido2 getAssertion/s ÷ Chrome virtual authenticator get/s",
            libfido2?.figures?.getAssertion.operationsPerSecond, chrome?.figures?.get.operationsPerSecond)
        add(
            "libfido2 makeCredential rk/s ÷ append+fdatasync/s (around 1 client)",
            libfido2?.figures?.makeCredential.operationsPerSecond, append)
        add(
            "WebAuthn get/s via PasskeyClient ÷ socket getAssertion/s (1 client)",
            webAuthn?.getAssertion.operationsPerSecond, socketOne?.getAssertion.operationsPerSecond)
        add(
            "WebAuthn create/s via PasskeyClient ÷ socket makeCredential rk/s (1 client)",
            webAuthn?.makeCredential.operationsPerSecond, socketOne?.makeCredential.operationsPerSecond)
        add(
            "socket makeCredential rk/s (1 client) ÷ raw P-256 signatures/s",
            socketOne?.makeCredential.operationsPerSecond, raw)
        add(
            "in-process getAssertion/s (memory store) ÷ raw P-256 signatures/s",
            inProcessMemory?.getAssertion.operationsPerSecond, raw)
        add(
            "socket getAssertion/s ÷ in-process getAssertion/s (memory store)",
            socketOne?.getAssertion.operationsPerSecond, inProcessMemory?.getAssertion.operationsPerSecond)
        add(
            "socket getAssertion/s ÷ in-process getAssertion/s (Keystore)",
            socketOne?.getAssertion.operationsPerSecond, inProcessKeystore?.getAssertion.operationsPerSecond)
        add(
            "socket makeCredential rk/s ÷ in-process makeCredential rk/s (Keystore)",
            socketOne?.makeCredential.operationsPerSecond, inProcessKeystore?.makeCredential.operationsPerSecond)
        let syncs = overwriteSync?.operationsPerSecond
        add(
            "socket getAssertion/s (1 client) ÷ overwrite+fdatasync/s", socketOne?.getAssertion.operationsPerSecond,
            syncs)
        add(
            "in-process getAssertion/s (Keystore) ÷ overwrite+fdatasync/s",
            inProcessKeystore?.getAssertion.operationsPerSecond, syncs)
        add(
            "socket makeCredential rk/s (1 client) ÷ overwrite+fdatasync/s",
            socketOne?.makeCredential.operationsPerSecond, syncs)
        add(
            "socket getAssertion/s (1 client) ÷ the same with --busy-poll 0",
            socketOne?.getAssertion.operationsPerSecond, socketWithoutBusyPoll?.operationsPerSecond)
        // The accept thread's own share: busy polling needs it, so with it off nothing polls;
        // against a daemon that keeps the thread but does not poll, only the accept path differs.
        if let plain = speedOff.first(where: { $0.mechanism == "acceptthread" }) {
            add(
                "socket getAssertion/s (1 client), --busy-poll 0 ÷ the same with \(SpeedMechanisms.environmentVariable)=acceptthread",
                socketWithoutBusyPoll?.operationsPerSecond, plain.one.getAssertion.operationsPerSecond)
        }
        // A mechanism earns its place with ≥ 10 % on one of these figures (issue 34).
        for off in speedOff {
            let figures: [(String, Measurement?, Measurement)] = [
                ("getAssertion/s (1 client)", socketOne?.getAssertion, off.one.getAssertion),
                ("getAssertion/s (\(clients) clients)", socketMany?.getAssertion, off.many.getAssertion),
                ("makeCredential rk/s (1 client)", socketOne?.makeCredential, off.one.makeCredential),
                ("makeCredential rk/s (\(clients) clients)", socketMany?.makeCredential, off.many.makeCredential)
            ]
            for (figure, on, plain) in figures {
                add(
                    "socket \(figure) ÷ the same with \(SpeedMechanisms.environmentVariable)=\(off.mechanism)",
                    on?.operationsPerSecond, plain.operationsPerSecond, target: 1.1)
            }
        }
        add(
            "socket getAssertion/s, \(clients) clients ÷ 1 client",
            socketMany?.getAssertion.operationsPerSecond, socketOne?.getAssertion.operationsPerSecond)
        add(
            "socket makeCredential rk/s, \(clients) clients ÷ 1 client",
            socketMany?.makeCredential.operationsPerSecond, socketOne?.makeCredential.operationsPerSecond)
        if let smallest = lookups.first, let largest = lookups.last, lookups.count > 1 {
            let from = BenchTable.grouped(smallest.population)
            let to = BenchTable.grouped(largest.population)
            add("lookup p50 at \(to) ÷ at \(from) credentials", largest.lookup.p50.seconds, smallest.lookup.p50.seconds)
            add(
                "socket getAssertion/s at \(to) ÷ at \(from) credentials",
                largest.socketGetAssertion.operationsPerSecond, smallest.socketGetAssertion.operationsPerSecond,
                target: 0.8)
            add("daemon ready at \(to) credentials, ÷ 300 ms", largest.ready.milliseconds, 300, target: 1, atMost: true)
        }
        return rows
    }
}
