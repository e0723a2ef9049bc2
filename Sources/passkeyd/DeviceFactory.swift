import Authenticator
import CTAP
import Keystore
import Logging
import PasskeyDaemon

/// Wires the credential store and the authenticator together: the one place
/// that knows which concrete store the daemon uses.
enum DeviceFactory {
    struct Device: Sendable {
        let handler: any CTAP2MessageHandler
        /// Settles the leased signature counters and closes the store, at shutdown.
        let close: @Sendable () async -> Void
    }

    /// Opens the keystore in `dataDirectory` (key-file protection when `passphrase` is nil).
    static func make(
        dataDirectory: String, passphrase: String?, presence: DaemonUserPresence, verifier: DaemonUserVerifier,
        configuration: Authenticator.Configuration, controls: TestControls, logger: Logger
    ) async throws(KeystoreError) -> Device {
        let store = try Keystore.open(directory: dataDirectory, passphrase: passphrase)
        let authenticator = Authenticator(
            store: store, presence: presence, verifier: verifier.isConfigured ? verifier : nil,
            configuration: configuration,
            logger: Logger(label: "passkeyd.authenticator"), controls: controls)
        return Device(
            handler: authenticator,
            close: {
                await authenticator.settleSignatureCounters()
                do { try await store.close() } catch { logger.error("closing the keystore failed: \(error)") }
            })
    }
}
