import Foundation
import PasskeydTestSupport
import Testing

/// `passkeyctl bio enroll|list|rename|remove` against `passkeyd --bio`, and `info` showing the reader.
@Suite struct BioCommandTests {
    static let pin = "4242"

    static func fingerprints(_ daemon: PasskeydProcess) async throws -> [[String: Any]] {
        let run = try await daemon.ctl(["bio", "list", "--json"], pin: Self.pin)
        #expect(run.status == 0, "\(run.stderr)")
        return try run.json["fingerprints"] as? [[String: Any]] ?? []
    }

    @Test func enrollRenameAndRemoveAFinger() async throws {
        try await withDaemon(["--bio", "--uv", "auto"]) { daemon in
            let info = try await daemon.ctl(["info", "--json"])
            #expect((try info.json["options"] as? [String: Bool])?["bioEnroll"] == false)
            #expect(try info.json["uvModality"] as? Int == 2)
            // No PIN, no finger: nothing to get a be token with.
            let early = try await daemon.ctl(["bio", "list"])
            #expect(early.status == 8)
            #expect(early.stderr.contains("Enrolling fingerprints needs a PIN"))

            #expect(try await daemon.ctl(["pin", "set"], newPIN: Self.pin).status == 0)
            let enrolled = try await daemon.ctl(["bio", "enroll", "--name", "Left index", "--json"], pin: Self.pin)
            #expect(enrolled.status == 0, "\(enrolled.stderr)")
            let template = try #require((try enrolled.json["enrolled"] as? [String: Any])?["templateId"] as? String)
            #expect(try await Self.fingerprints(daemon).map { $0["templateId"] as? String } == [template])
            #expect((try await daemon.ctl(["info", "--json"]).json["options"] as? [String: Bool])?["uv"] == true)

            #expect(
                try await daemon.ctl(["bio", "rename", template, "--name", "Right thumb"], pin: Self.pin).status == 0)
            #expect(try await Self.fingerprints(daemon).first?["name"] as? String == "Right thumb")
            let unnamed = try await daemon.ctl(["bio", "rename", "00ff", "--name", "Nobody"], pin: Self.pin)
            #expect(unnamed.status == 5)
            #expect(unnamed.stderr.contains("No fingerprint 00ff is enrolled; nothing was renamed."))

            let unknown = try await daemon.ctl(["bio", "remove", "00ff"], pin: Self.pin)
            #expect(unknown.status == 5)
            #expect(unknown.stderr.contains("No fingerprint 00ff is enrolled; nothing was removed."))
            let notHex = try await daemon.ctl(["bio", "remove", "xyz"], pin: Self.pin)
            #expect(notHex.status == 1)
            #expect(try await Self.fingerprints(daemon).count == 1)

            #expect(try await daemon.ctl(["bio", "remove", template], pin: Self.pin).status == 0)
            #expect(try await Self.fingerprints(daemon).isEmpty)
        }
    }

    @Test func aDeviceWithoutAReaderSaysHowToGetOne() async throws {
        try await withDaemon { daemon in
            let run = try await daemon.ctl(["bio", "list"], pin: Self.pin)
            #expect(run.status == 8)
            #expect(run.stderr.contains("start passkeyd with --bio"))
        }
    }
}
