import ArgumentParser
import CTAP
import Foundation
import PasskeyClient
import WebAuthn

/// `passkeyctl watch`: one line per device event until interrupted (docs/testing-your-relying-party.md).
/// A daemon that goes away (restarted, upgraded, socket-activated again) is waited for and
/// watched again, saying so on standard error, unless `--once`; what happens while it is away
/// is not seen (the WATCH stream starts at the subscription).
struct WatchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch", abstract: "Show what the authenticator does, one line per event, until Ctrl-C.",
        discussion:
            "Events: \(DeviceEvent.Kind.allCases.map(\.rawValue).joined(separator: ", ")). --json prints one JSON object per line. When the daemon goes away, watch waits for it and goes on (--once stops instead)."
    )
    @OptionGroup var global: GlobalOptions

    @Flag(help: "Stop when the daemon goes away, instead of waiting for it to come back.")
    var once = false

    /// Waits between reconnection attempts: short at first (a restart takes well under a
    /// second), then no busier than one try a second.
    static let backoff: [Duration] = [.milliseconds(100), .milliseconds(200), .milliseconds(400), .milliseconds(800)]
    static let slowestRetry: Duration = .seconds(1)

    func run() async throws {
        let connection = global.connect()
        // A first round trip, so a missing daemon is reported as such before waiting.
        _ = try await connection.vendor(.status)
        var reconnected = false
        while true {
            do {
                try await watch(connection, again: reconnected)
                if once { return }
            } catch let error as CTAP2Error {
                guard !once, case .transport(let lost) = error, Self.daemonWentAway(lost) else {
                    throw Failure(error, socket: connection.socket)
                }
            }
            Output.error("passkeyd at \(connection.socket) went away; waiting for it to come back (Ctrl-C stops).")
            try await waitForDaemon(connection)
            reconnected = true
        }
    }

    /// Prints events until the daemon's stream ends (it returns) or fails (it throws).
    private func watch(_ connection: Connection, again: Bool) async throws {
        let controls = DeviceControls(transport: connection.transport)
        let events = try await controls.events()
        Output.error(
            again
                ? "passkeyd at \(connection.socket) is back; watching again."
                : "Watching passkeyd on \(connection.socket); Ctrl-C stops.")
        for try await event in events {
            // Unbuffered, line by line: a script reading the pipe sees each event at once.
            FileHandle.standardOutput.write(
                Data(((global.json ? Self.json(event).line : Self.sentence(event)) + "\n").utf8))
        }
    }

    /// Tries the daemon again with the backoff until it answers; only a socket that is not
    /// provably ours any more (a refusal, not an absence) ends the wait.
    private func waitForDaemon(_ connection: Connection) async throws {
        var attempt = 0
        while true {
            try await Task.sleep(for: attempt < Self.backoff.count ? Self.backoff[attempt] : Self.slowestRetry)
            attempt += 1
            do {
                _ = try await connection.transport.vendor(.status, payload: [])
                return
            } catch {
                guard Self.daemonWentAway(error) else { throw Failure(.transport(error), socket: connection.socket) }
            }
        }
    }

    /// The failures of a daemon that stopped, or is not listening yet.
    static func daemonWentAway(_ error: TransportError) -> Bool {
        switch error {
        case .disconnected, .unreachable, .timeout: return true
        default: return false
        }
    }

    static func json(_ event: DeviceEvent) -> JSON {
        var fields: [(String, JSON)] = [
            ("event", .string(event.kind.rawValue)),
            (
                "time",
                .string(event.time.formatted(.iso8601.time(includingFractionalSeconds: true).year().month().day()))
            )
        ]
        if let rpID = event.rpID { fields.append(("rpId", .string(rpID))) }
        if let id = event.credentialID { fields.append(("credentialId", .string(Base64URL.encode(id)))) }
        if let name = event.userName { fields.append(("userName", .string(name))) }
        if let count = event.signCount { fields.append(("signCount", .int(Int(count)))) }
        if let detail = event.detail { fields.append(("detail", .string(detail))) }
        if event.dropped > 0 { fields.append(("dropped", .int(event.dropped))) }
        return .object(fields)
    }

    static func sentence(_ event: DeviceEvent) -> String {
        var parts = [event.time.formatted(.iso8601.time(includingFractionalSeconds: true)), event.kind.rawValue]
        if let rpID = event.rpID { parts.append(rpID) }
        if let id = event.credentialID { parts.append("credential " + Base64URL.encode(id)) }
        if let name = event.userName { parts.append("user \(name)") }
        if let count = event.signCount { parts.append("signCount \(count)") }
        if let detail = event.detail { parts.append(detail) }
        if event.dropped > 0 { parts.append("(\(event.dropped) earlier events missed: read too slowly)") }
        return parts.joined(separator: "  ")
    }
}
