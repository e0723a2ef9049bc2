import Foundation

/// passkeyd through libfido2, a C client that blocks in `read` on the caller's thread (no
/// event loop of its own): `scripts/libfido2-bench.c`, built by `scripts/bench.sh` against
/// the shipped socket adapter. It shows what the daemon answers when the client adds no
/// thread hand-offs, beside the figures through PasskeyClient's NIO transport. Skipped,
/// with the reason, when the program was not built or the run fails.
enum Libfido2Client {
    /// Resident registrations, then discoverable sign-ins, on one connection.
    typealias Outcome = ReportedOutcome<BenchResults.Pair>

    static func measure(program: String?, daemon: BenchDaemon, limits: RunLimits, work: String) -> Outcome {
        guard let program else {
            return Outcome(
                skipped: "no --libfido2-bench program (scripts/bench.sh builds it when libfido2-dev is installed)")
        }
        guard FileManager.default.isExecutableFile(atPath: program) else {
            return Outcome(skipped: "\(program) is not an executable")
        }
        return Outcome(
            ReportingProgram.run(
                program, [daemon.socket, "\(limits.operations)", "\(limits.duration.seconds)"],
                log: work + "/libfido2.log", as: BenchResults.Pair.self))
    }
}
