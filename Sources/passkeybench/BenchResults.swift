/// Every figure of one run, and the report that sets them side by side.
struct BenchResults {
    struct Pair {
        var getAssertion: Measurement
        var makeCredential: Measurement
    }

    struct Lookup {
        var population: Int
        /// `Keystore.credentials(rpID:)` for the RP with one credential.
        var lookup: Measurement
        /// A discoverable getAssertion over the socket on that store.
        var socketGetAssertion: Measurement
    }

    var rawSign: Measurement?
    /// A 4 KiB page rewritten in place, then fdatasync: the floor of a commit to a reused WAL.
    var overwriteSync: Measurement?
    /// The same, measured again last: on a shared disk, flush latency can change mid-run.
    var overwriteSyncAtEnd: Measurement?
    /// A 4 KiB page appended, then fdatasync: the floor of a commit to a growing WAL.
    var appendSync: Measurement?
    var inProcessMemory: Pair?
    var inProcessKeystore: Pair?
    var socketOne: Pair?
    var socketMany: Pair?
    var lookups: [Lookup] = []

    func report(clients: Int) -> String {
        var sections: [String] = []
        let header = ["figure", "clients", "ops", "ops/s", "p50 ms", "p99 ms", "÷ raw P-256", "ops per client"]
        var rows: [[String]] = []
        func row(_ label: String, _ clients: Int, _ m: Measurement?) {
            guard let m else { return }
            let ratio = rawSign.map { BenchTable.figure(m.operationsPerSecond / $0.operationsPerSecond, decimals: 3) } ?? "-"
            let spread = m.perClient.count > 1 ? "\(m.perClient.min() ?? 0)–\(m.perClient.max() ?? 0)" : "-"
            rows.append([label, "\(clients)", "\(m.operations)", BenchTable.figure(m.operationsPerSecond),
                         BenchTable.milliseconds(m.p50), BenchTable.milliseconds(m.p99), ratio, spread])
        }
        row("raw P-256 ECDSA sign, swift-crypto (baseline)", 1, rawSign)
        row("4 KiB overwrite + fdatasync (baseline)", 1, overwriteSync)
        row("4 KiB append + fdatasync (baseline)", 1, appendSync)
        row("4 KiB overwrite + fdatasync, again at the end", 1, overwriteSyncAtEnd)
        row("getAssertion, in-process, memory store", 1, inProcessMemory?.getAssertion)
        row("makeCredential rk, in-process, memory store", 1, inProcessMemory?.makeCredential)
        row("getAssertion, in-process, Keystore", 1, inProcessKeystore?.getAssertion)
        row("makeCredential rk, in-process, Keystore", 1, inProcessKeystore?.makeCredential)
        row("getAssertion over the socket", 1, socketOne?.getAssertion)
        row("getAssertion over the socket", clients, socketMany?.getAssertion)
        row("makeCredential rk over the socket", 1, socketOne?.makeCredential)
        row("makeCredential rk over the socket", clients, socketMany?.makeCredential)
        sections.append(BenchTable.render(header: header, rows: rows))
        sections.append("""
            The socket figures run against a real passkeyd (--presence auto --uv off, Keystore on disk, \
            synchronous=FULL). One device serves every channel one transaction at a time \
            (CTAP 2.1 §11.2.9), so \(clients) clients measure contention and fairness, not parallel \
            speedup: a client that finds the device busy is told CTAPHID_ERR_CHANNEL_BUSY, which its transport retries.
            """)

        if let first = overwriteSync, let last = overwriteSyncAtEnd {
            let change = last.p50.seconds / max(first.p50.seconds, 1e-9)
            if change > 2 || change < 0.5 {
                sections.append("""
                    WARNING: the disk's flush latency changed \(BenchTable.figure(change, decimals: 1))× during \
                    the run (fdatasync p50 \(BenchTable.milliseconds(first.p50)) ms at the start, \
                    \(BenchTable.milliseconds(last.p50)) ms at the end): figures that wait for the keystore \
                    were taken under different disk load, and ratios between them are unreliable. Run again.
                    """)
            }
        }

        if !lookups.isEmpty {
            let lookupHeader = ["resident credentials", "lookups", "lookup p50 ms", "lookup p99 ms",
                                "socket getAssertion/s", "p50 ms", "p99 ms"]
            let lookupRows = lookups.map { entry in
                [BenchTable.grouped(entry.population), "\(entry.lookup.operations)",
                 BenchTable.milliseconds(entry.lookup.p50), BenchTable.milliseconds(entry.lookup.p99),
                 BenchTable.figure(entry.socketGetAssertion.operationsPerSecond),
                 BenchTable.milliseconds(entry.socketGetAssertion.p50), BenchTable.milliseconds(entry.socketGetAssertion.p99)]
            }
            sections.append("Discoverable lookup: Keystore.credentials(rpID:) for an RP holding 1 credential among the population, "
                            + "then a discoverable getAssertion over the socket on the same store (1 client).\n"
                            + BenchTable.render(header: lookupHeader, rows: lookupRows))
        }

        sections.append("Ratios (same run):\n" + BenchTable.render(header: ["ratio", "value"], rows: ratios(clients: clients)))
        return sections.joined(separator: "\n\n")
    }

    private func ratios(clients: Int) -> [[String]] {
        var rows: [[String]] = []
        func add(_ label: String, _ numerator: Double?, _ denominator: Double?) {
            guard let numerator, let denominator, denominator > 0 else { return }
            rows.append([label, BenchTable.figure(numerator / denominator, decimals: 3)])
        }
        let raw = rawSign?.operationsPerSecond
        add("socket getAssertion/s (1 client) ÷ raw P-256 signatures/s", socketOne?.getAssertion.operationsPerSecond, raw)
        add("socket makeCredential rk/s (1 client) ÷ raw P-256 signatures/s", socketOne?.makeCredential.operationsPerSecond, raw)
        add("in-process getAssertion/s (memory store) ÷ raw P-256 signatures/s", inProcessMemory?.getAssertion.operationsPerSecond, raw)
        add("socket getAssertion/s ÷ in-process getAssertion/s (memory store)",
            socketOne?.getAssertion.operationsPerSecond, inProcessMemory?.getAssertion.operationsPerSecond)
        add("socket getAssertion/s ÷ in-process getAssertion/s (Keystore)",
            socketOne?.getAssertion.operationsPerSecond, inProcessKeystore?.getAssertion.operationsPerSecond)
        add("socket makeCredential rk/s ÷ in-process makeCredential rk/s (Keystore)",
            socketOne?.makeCredential.operationsPerSecond, inProcessKeystore?.makeCredential.operationsPerSecond)
        let syncs = overwriteSync?.operationsPerSecond
        add("socket getAssertion/s (1 client) ÷ overwrite+fdatasync/s", socketOne?.getAssertion.operationsPerSecond, syncs)
        add("in-process getAssertion/s (Keystore) ÷ overwrite+fdatasync/s", inProcessKeystore?.getAssertion.operationsPerSecond, syncs)
        add("socket makeCredential rk/s (1 client) ÷ overwrite+fdatasync/s", socketOne?.makeCredential.operationsPerSecond, syncs)
        add("socket getAssertion/s, \(clients) clients ÷ 1 client",
            socketMany?.getAssertion.operationsPerSecond, socketOne?.getAssertion.operationsPerSecond)
        add("socket makeCredential rk/s, \(clients) clients ÷ 1 client",
            socketMany?.makeCredential.operationsPerSecond, socketOne?.makeCredential.operationsPerSecond)
        if let smallest = lookups.first, let largest = lookups.last, lookups.count > 1 {
            let from = BenchTable.grouped(smallest.population), to = BenchTable.grouped(largest.population)
            add("lookup p50 at \(to) ÷ at \(from) credentials", largest.lookup.p50.seconds, smallest.lookup.p50.seconds)
            add("socket getAssertion/s at \(to) ÷ at \(from) credentials",
                largest.socketGetAssertion.operationsPerSecond, smallest.socketGetAssertion.operationsPerSecond)
        }
        return rows
    }
}
