import ArgumentParser
import CTAP
import Foundation
import PasskeyClient
import WebAuthn

/// `passkeyctl watch`: one line per device event until interrupted (docs/testing-your-relying-party.md).
struct WatchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch", abstract: "Show what the authenticator does, one line per event, until Ctrl-C.",
        discussion:
            "Events: \(DeviceEvent.Kind.allCases.map(\.rawValue).joined(separator: ", ")). --json prints one JSON object per line."
    )
    @OptionGroup var global: GlobalOptions

    func run() async throws {
        let connection = global.connect()
        let controls = DeviceControls(transport: connection.transport)
        // A first round trip, so a missing daemon is reported as such before waiting.
        _ = try await connection.vendor(.status)
        do {
            let events = try await controls.events()
            Output.error("Watching passkeyd on \(connection.socket); Ctrl-C stops.")
            for try await event in events {
                // Unbuffered, line by line: a script reading the pipe sees each event at once.
                FileHandle.standardOutput.write(
                    Data(((global.json ? Self.json(event).line : Self.sentence(event)) + "\n").utf8))
            }
        } catch let error as CTAP2Error {
            throw Failure(error, socket: connection.socket)
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
