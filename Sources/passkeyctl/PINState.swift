import CTAP
import Foundation
import PasskeyClient

/// Whether a PIN is set, how many tries are left, and the same for built-in UV (CTAP 2.1 §6.5.5.2–§6.5.5.3).
struct PINState: Sendable {
    var isSet: Bool
    var retries: Int?
    var powerCycleRequired: Bool
    var uvConfigured: Bool?
    var uvRetries: Int?

    static func read(_ connection: Connection, info: GetInfoResponse) async throws(Failure) -> PINState {
        let clientPIN = try connection.clientPIN(info)
        let isSet = info.options["clientPin"] == true
        // Without a PIN there are no retries to count (passkeyd, like hardware keys, answers PIN_NOT_SET).
        var retries: Int?
        var powerCycle = false
        if isSet {
            (retries, powerCycle) = try await connection.run { () async throws(CTAP2Error) in
                let answer = try await clientPIN.pinRetries()
                return (Optional(answer.retries), answer.powerCycleRequired)
            }
        }
        var uvRetries: Int?
        if info.options["uv"] != nil {
            uvRetries = try await connection.run { () async throws(CTAP2Error) in try await clientPIN.uvRetries() }
        }
        return PINState(
            isSet: isSet, retries: retries, powerCycleRequired: powerCycle,
            uvConfigured: info.options["uv"], uvRetries: uvRetries)
    }

    var json: JSON {
        .object([
            ("set", .bool(isSet)),
            ("retries", .optional(retries)),
            ("powerCycleRequired", .bool(powerCycleRequired)),
            ("uv", .optional(uvConfigured)),
            ("uvRetries", .optional(uvRetries))
        ])
    }

    var summary: String {
        guard isSet else { return "not set" }
        var text = "set, \(retries.map(String.init) ?? "?") \(retries == 1 ? "try" : "tries") left"
        if retries == 0 {
            text += " (blocked: only `passkeyctl reset` helps)"
        } else if powerCycleRequired {
            text += " (blocked until `passkeyctl replug`)"
        }
        return text
    }

    func rows(minLength: Int?) -> [[String]] {
        var rows = [["PIN", summary + (minLength.map { "; at least \($0) characters" } ?? "")]]
        if let uvConfigured {
            rows.append(["built-in UV", uvConfigured ? "on, \(uvRetries.map(String.init) ?? "?") tries left" : "off"])
        }
        return rows
    }
}
