import Foundation
import PasskeydTestSupport
import Testing

/// `pin set|change|status`, wrong PINs, the power-cycle block and the permanent block.
@Suite struct PINCommandTests {
    static let pin = "4242"

    static func pinStatus(_ daemon: PasskeydProcess) async throws -> [String: Any] {
        try await daemon.ctl(["pin", "status", "--json"]).json
    }

    @Test func setChangeAndStatus() async throws {
        try await withDaemon { daemon in
            #expect(try await Self.pinStatus(daemon)["set"] as? Bool == false)
            let short = try await daemon.ctl(["pin", "set"], newPIN: "12")
            #expect(short.status == 8)
            #expect(short.stderr.contains("at least 4"))
            #expect(try await daemon.ctl(["pin", "set"], newPIN: Self.pin).status == 0)
            #expect(try await Self.pinStatus(daemon)["set"] as? Bool == true)
            #expect(try await Self.pinStatus(daemon)["retries"] as? Int == 8)

            let again = try await daemon.ctl(["pin", "set"], newPIN: "9999")
            #expect(again.status == 8)
            #expect(again.stderr.contains("pin change"))

            // The current PIN from a file (trailing newline ignored), the new one from the environment.
            // A file others may read is refused, as passkeyd refuses such a passphrase file.
            let file = daemon.folder.url.appendingPathComponent("pin.txt")
            try (Self.pin + "\n").write(to: file, atomically: true, encoding: .utf8)
            try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: file.path)
            let exposed = try await daemon.ctl(["pin", "change", "--pin-file", file.path], newPIN: "5151")
            #expect(exposed.status != 0)
            #expect(exposed.stderr.contains("accessible by other users") && exposed.stderr.contains("chmod 600"))
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file.path)
            #expect(try await daemon.ctl(["pin", "change", "--pin-file", file.path], newPIN: "5151").status == 0)
            #expect(try await daemon.ctl(["list"], pin: "5151").status == 0)
            #expect(try await daemon.ctl(["list"], pin: Self.pin).status == 3)
        }
    }

    @Test func wrongPINCountsDownThenWantsAReplug() async throws {
        try await withDaemon { daemon in
            #expect(try await daemon.ctl(["pin", "set"], newPIN: Self.pin).status == 0)
            let first = try await daemon.ctl(["list"], pin: "0000")
            #expect(first.status == 3)
            #expect(first.stderr.contains("Wrong PIN, 7 tries left"))
            let second = try await daemon.ctl(["list", "--json"], pin: "0000")
            #expect(second.status == 3)
            #expect((try second.json["error"] as? [String: Any])?["retriesLeft"] as? Int == 6)
            // The third in a row: blocked until a power cycle, even for the right PIN.
            let third = try await daemon.ctl(["list"], pin: "0000")
            #expect(third.status == 4)
            #expect(third.stderr.contains("passkeyctl replug"))
            #expect(try await daemon.ctl(["list"], pin: Self.pin).status == 4)
            #expect(try await Self.pinStatus(daemon)["powerCycleRequired"] as? Bool == true)

            #expect(try await daemon.ctl(["replug"]).status == 0)
            #expect(try await daemon.ctl(["list"], pin: Self.pin).status == 0)
            let status = try await Self.pinStatus(daemon)
            #expect(status["retries"] as? Int == 8)
            #expect(status["powerCycleRequired"] as? Bool == false)
        }
    }

    @Test func eightWrongPINsBlockItUntilReset() async throws {
        try await withDaemon { daemon in
            #expect(try await daemon.ctl(["pin", "set"], newPIN: Self.pin).status == 0)
            var last: ProcessRun?
            for attempt in 1...8 {
                last = try await daemon.ctl(["list", "--json"], pin: "0000")
                if attempt % 3 == 0 { #expect(try await daemon.ctl(["replug"]).status == 0) }
            }
            let blocked = try #require(last)
            #expect(blocked.status == 4)
            #expect((try blocked.json["error"] as? [String: Any])?["kind"] as? String == "pin-blocked")
            let right = try await daemon.ctl(["list"], pin: Self.pin)
            #expect(right.status == 4)
            #expect(right.stderr.contains("passkeyctl reset"))

            // Reset is the way out: no PIN afterwards.
            #expect(try await daemon.ctl(["reset", "--replug", "--yes"]).status == 0)
            #expect(try await Self.pinStatus(daemon)["set"] as? Bool == false)
        }
    }
}
