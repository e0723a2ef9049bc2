import CTAP
import Foundation
import PasskeydTestSupport
import Testing

/// What passkeyd refuses to start with: a non-zero exit, a sentence, and no socket.
///
/// Keystore sentences are pinned on their stable part, the path they name.
@Suite struct RefusalTests {
    @Test(
        arguments: [
            (["--presence", "sometimes"], [:], "--presence must be auto, prompt or deny, not 'sometimes'"),
            ([], ["PASSKEYD_PRESENCE": "sometimes"], "--presence must be auto, prompt or deny, not 'sometimes'"),
            (["--uv", "maybe"], [:], "--uv must be auto, prompt, deny or off, not 'maybe'"),
            ([], ["PASSKEYD_UV": "maybe"], "--uv must be auto, prompt, deny or off, not 'maybe'"),
            (
                ["--profile", "fido2"], [:],
                "--profile must be one of u2f, fido2.0, fido2.1-pre, fido2.1, fido2.2, not 'fido2'"
            ),
            (
                [], ["PASSKEYD_PROFILE": "ctap3"],
                "--profile must be one of u2f, fido2.0, fido2.1-pre, fido2.1, fido2.2, not 'ctap3'"
            ),
            (["--counter", "sometimes"], [:], "--counter must be per-credential, global or zero, not 'sometimes'"),
            ([], ["PASSKEYD_ATTESTATION": "basic"], "--attestation must be none, self or x5c, not 'basic'"),
            (["--backup-state"], [:], "--backup-state needs --backup-eligible"),
            (["--bio", "--uv", "off"], [:], "--bio needs --uv auto, prompt or deny"),
            (["--uv", "off"], ["PASSKEYD_BIO": "1"], "--bio needs --uv auto, prompt or deny"),
            (
                ["--log-level", "loud"], [:],
                "--log-level must be one of trace, debug, info, notice, warning, error, critical"
            ),
            (
                [], ["PASSKEYD_LOG_LEVEL": "loud"],
                "--log-level must be one of trace, debug, info, notice, warning, error, critical"
            ),
            (["--busy-poll", "lots"], [:], "--busy-poll must be a number of microseconds from 0 to 100000, not 'lots'"),
            (
                [], ["PASSKEYD_BUSY_POLL": "-1"],
                "--busy-poll must be a number of microseconds from 0 to 100000, not '-1'"
            ),
            (["--bogus"], [:], "--bogus")
        ] as [([String], [String: String], String)])
    func aBadValueIsRefusedWithASentence(arguments: [String], environment: [String: String], sentence: String)
        async throws
    {
        let folder = try TemporaryFolder("pkd-refused")
        defer { folder.remove() }
        let run = try await PasskeydProcess.refusal(arguments, environment: environment, in: folder)
        #expect(run.status == 64, "a bad value is a usage error, as an unknown flag is (EX_USAGE)")
        #expect(run.stderr.contains(sentence), "stderr: \(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder.appending("ctaphid.sock")))
        #expect(
            !FileManager.default.fileExists(atPath: folder.appending("data")), "refused before the keystore was touched"
        )
    }

    @Test func aSecondDaemonOnTheSameSocketIsRefusedAndTheFirstKeepsServing() async throws {
        try await PasskeydProcess.with(["--uv", "off"]) { first in
            let folder = try TemporaryFolder("pkd-second")
            defer { folder.remove() }
            let run = try await PasskeydProcess.refusal(
                ["--socket", first.socket, "--data-dir", folder.appending("data")],
                placement: .implied(socket: first.socket, dataDirectory: folder.appending("data")), in: folder)
            #expect(run.status == 1, "cannot start: exit 1 (README)")
            #expect(run.stderr.contains(first.socket), "stderr: \(run.stderr)")
            #expect(SocketProbe.isSocket(first.socket), "the first daemon's socket was left alone")
            #expect(try await first.withSession { try await $0.getInfo() }.versions.contains("FIDO_2_1"))
        }
    }

    @Test func anUnreadablePassphraseFileIsRefusedByName() async throws {
        let folder = try TemporaryFolder("pkd-nopass")
        defer { folder.remove() }
        let missing = folder.appending("no-such-passphrase")
        let run = try await PasskeydProcess.refusal(["--passphrase-file", missing], in: folder)
        #expect(run.status == 1, "cannot start: exit 1 (README)")
        #expect(run.stderr.contains(missing), "stderr: \(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder.appending("ctaphid.sock")))
    }

    /// A passphrase keystore opens only with its passphrase, from the file or PASSKEYD_PASSPHRASE;
    /// a wrong one, or none, is refused naming the keystore, and the credential survives both.
    @Test func onlyTheRightPassphraseOpensThePassphraseKeystore() async throws {
        let folder = try TemporaryFolder("pkd-passphrase")
        defer { folder.remove() }
        let right = folder.appending("right")
        let wrong = folder.appending("wrong")
        try "correct horse battery staple\n".write(toFile: right, atomically: true, encoding: .utf8)
        try "incorrect horse\n".write(toFile: wrong, atomically: true, encoding: .utf8)
        // A passphrase file others can read is refused (hardening F7): these are private, as a user's would be.
        for file in [right, wrong] {
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file)
        }

        let first = try await PasskeydProcess.start(["--uv", "off", "--passphrase-file", right], in: folder)
        let id = try await first.register(rp: "example.com", user: "alice")
        #expect(await first.terminate() == 0)

        for refused in [
            try await PasskeydProcess.refusal(["--uv", "off", "--passphrase-file", wrong], in: folder),
            try await PasskeydProcess.refusal(
                ["--uv", "off"], environment: ["PASSKEYD_PASSPHRASE": "incorrect horse"], in: folder),
            try await PasskeydProcess.refusal(["--uv", "off"], in: folder)
        ] {
            #expect(refused.status != 0)
            #expect(refused.stderr.contains(folder.appending("data")), "stderr: \(refused.stderr)")
            #expect(!FileManager.default.fileExists(atPath: folder.appending("ctaphid.sock")))
        }

        // The file's trailing newline is not part of the passphrase.
        try await PasskeydProcess.with(
            ["--uv", "off"], environment: ["PASSKEYD_PASSPHRASE": "correct horse battery staple"], in: folder
        ) { again in
            let found = try await again.discoverableCredentials(rp: "example.com")
            #expect(found == [id])
        }
    }
}
