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
        // getInfo's maxCredentialIdLength (CTAP 2.1 §6.4) covers the IDs an import may bring (up to
        // WebAuthn's 1023 bytes), not only those passkeyd mints: a platform leaves longer IDs out
        // of the allow lists it sends.
        var configuration = configuration
        configuration.maxCredentialIDLength = max(
            configuration.maxCredentialIDLength, CredentialSource.maxImportedIDLength)
        // The test controls meet the device here and nowhere else: the non-discoverable
        // credentials a test imports beside the keystore (and, with the controls open, those the
        // device makes, so a test suite lists them), and presence and UV as a test set them
        // (CONTROLS; docs/vendor-commands.md). With no control set, each asks the mode's own.
        let controlledPresence = ControlledUserPresence(
            configured: presence, waiting: DaemonUserPresence(mode: .prompt, broker: presence.broker),
            controls: controls)
        let authenticator = Authenticator(
            store: NonDiscoverableCredentials(
                base: store, keepingMadeCredentials: controls.admitsTokenlessCredentialControls),
            presence: controlledPresence,
            verifier: verifier.isConfigured ? ControlledUserVerifier(configured: verifier, controls: controls) : nil,
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
