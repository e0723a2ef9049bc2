import Foundation
import PasskeydTestSupport

extension PasskeydProcess {
    /// Every credential `passkeyctl list --json` shows, flattened, with its RP ID.
    func listed(pin: String?) throws -> [[String: Any]] {
        let run = try ctl(["list", "--json"], pin: pin)
        guard run.status == 0 else { throw FixtureError("list failed (\(run.status)): \(run.stderr)\(run.stdout)") }
        let groups = try run.json["relyingParties"] as? [[String: Any]] ?? []
        return groups.flatMap { $0["credentials"] as? [[String: Any]] ?? [] }
    }
}
