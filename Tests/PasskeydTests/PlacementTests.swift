import CTAP
import Foundation
import PasskeydTestSupport
import Testing

/// Where passkeyd puts its socket and keystore: flags, their environment variables, and the
/// XDG defaults (README, "flag (environment) | default").
@Suite struct PlacementTests {
    /// The daemon answers CTAP on `daemon.socket` and keeps its keystore in `daemon.dataDirectory`.
    static func expectServing(_ daemon: PasskeydProcess) async throws {
        #expect(SocketProbe.isSocket(daemon.socket))
        #expect(FileManager.default.fileExists(atPath: daemon.dataDirectory + "/keystore.sqlite"))
        #expect(FileManager.default.fileExists(atPath: daemon.dataDirectory + "/keystore.key"))
        let info = try await daemon.withSession { try await $0.getInfo() }
        #expect(info.versions.contains("FIDO_2_1"))
    }

    @Test func flagsPlaceTheSocketAndTheKeystore() async throws {
        try await PasskeydProcess.with(placement: .flags) { daemon in
            try await Self.expectServing(daemon)
        }
    }

    @Test func environmentVariablesPlaceThemAsTheFlagsDo() async throws {
        try await PasskeydProcess.with(placement: .environment) { daemon in
            try await Self.expectServing(daemon)
        }
    }

    @Test func aFlagWinsOverItsEnvironmentVariable() async throws {
        let decoy = TemporaryFolder.freshPath("pkd-decoy")
        try await PasskeydProcess.with(environment: [
            "PASSKEYD_SOCKET": decoy + "/ctaphid.sock", "PASSKEYD_DATA_DIR": decoy
        ]) { daemon in
            try await Self.expectServing(daemon)
            #expect(!FileManager.default.fileExists(atPath: decoy), "the environment's paths were not used")
        }
    }

    @Test func xdgFoldersAreTheDefaults() async throws {
        let home = try TemporaryFolder("pkd-xdg")
        let runtime = home.appending("run")
        let data = home.appending("share")
        try FileManager.default.createDirectory(
            atPath: runtime, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        try await PasskeydProcess.with(
            environment: ["XDG_RUNTIME_DIR": runtime, "XDG_DATA_HOME": data, "HOME": home.path],
            placement: .implied(socket: runtime + "/passkeyd/ctaphid.sock", dataDirectory: data + "/passkeyd"),
            in: home,
            Self.expectServing)
    }

    @Test func withoutXDGDataHomeTheKeystoreIsUnderHome() async throws {
        let home = try TemporaryFolder("pkd-home")
        let runtime = home.appending("run")
        try FileManager.default.createDirectory(
            atPath: runtime, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        try await PasskeydProcess.with(
            environment: ["XDG_RUNTIME_DIR": runtime, "HOME": home.path],
            placement: .implied(
                socket: runtime + "/passkeyd/ctaphid.sock", dataDirectory: home.path + "/.local/share/passkeyd"),
            in: home,
            Self.expectServing)
    }

    @Test func thePidFileHoldsTheServingProcess() async throws {
        try await PasskeydProcess.with { daemon in
            let text = try String(contentsOfFile: daemon.pidFile, encoding: .utf8)
            #expect(text == "\(daemon.pid)\n")
        }
    }
}
