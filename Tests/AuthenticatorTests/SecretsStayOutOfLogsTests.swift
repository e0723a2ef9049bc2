import CTAP
import Crypto
import Foundation
import Logging
import Synchronization
import Testing

@testable import Authenticator

/// A log handler that keeps every rendered line: message and metadata.
final class RecordingLogHandler: LogHandler, Sendable {
    private let lines = Mutex<[String]>([])
    var metadata: Logger.Metadata {
        get { [:] }
        set {}
    }
    var logLevel: Logger.Level {
        get { .trace }
        set {}
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { nil }
        set {}
    }

    func log(event: LogEvent) {
        let rendered = "\(event.message) \(event.metadata.map { "\($0)" } ?? "") \(event.error.map { "\($0)" } ?? "")"
        lines.withLock { $0.append(rendered) }
    }

    var all: [String] { lines.withLock { $0 } }
}

@Suite struct SecretsStayOutOfLogsTests {
    @Test func noPINHashOrTokenReachesTheLog() async throws {
        let recorder = RecordingLogHandler()
        let h = Harness(logger: Logger(label: "test", factory: { _ in recorder }))
        let platform = PlatformPIN(h, .two)
        let pin = "s3cret-PIN"
        #expect(try await platform.setPIN(pin) == .success)
        #expect(try await platform.token(pin: "wrong-PIN").0 == .pinInvalid)
        let token = try await platform.grantedToken(pin: pin, permissions: [.mc, .cm])
        #expect(try await platform.changePIN(from: pin, to: "n3w-PIN-value") == .success)
        _ = try await h.status(of: .makeCredential, platform.makeCredential(token).cbor)
        let lines = recorder.all
        #expect(!lines.isEmpty, "the authenticator does log its outcomes")
        let tokenBytes = token.secret.withUnsafeBytes { Array($0) }
        let forbidden =
            [pin, "wrong-PIN", "n3w-PIN-value"]
            + [PINHash.of(pin), PINHash.of("n3w-PIN-value"), tokenBytes].flatMap { bytes in
                [bytes.map { String(format: "%02x", $0) }.joined(), "\(bytes)"]
            }
        for line in lines {
            for secret in forbidden {
                #expect(!line.contains(secret), "log line leaks a secret: \(line)")
            }
        }
    }
}
