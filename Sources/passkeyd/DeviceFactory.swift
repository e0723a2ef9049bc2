import Authenticator
import Logging
import PasskeyDaemon

/// Wires the credential store and the authenticator together: the one place
/// that knows which concrete store the daemon uses.
enum DeviceFactory {
    struct Device: Sendable {
        let handler: any CTAP2MessageHandler
        /// Closes the store at shutdown.
        let close: @Sendable () async -> Void
    }

    /// Why the device could not be made; `description` is shown to the user.
    struct OpenError: Error, CustomStringConvertible {
        let description: String
    }

    static func make(
        dataDirectory: String, passphrase: String?, presence: DaemonUserPresence, verifier: DaemonUserVerifier,
        logger: Logger
    ) async throws(OpenError) -> Device {
        // TEMPORARY until the Keystore module lands on main: an in-memory store,
        // so credentials do not survive a restart and `dataDirectory`/`passphrase`
        // are unused. At merge, replace the next two lines with:
        //
        //     let store: Keystore
        //     do { store = try Keystore.open(directory: dataDirectory, passphrase: passphrase) }
        //     catch { throw OpenError(description: error.description) }
        //     ... close: { try? await store.close() }
        let store = InMemoryCredentialStore()
        logger.warning("TEMPORARY: in-memory credential store; nothing is written to \(dataDirectory)")

        let authenticator = Authenticator(
            store: store, presence: presence, verifier: verifier.isConfigured ? verifier : nil,
            logger: Logger(label: "passkeyd.authenticator"))
        return Device(handler: authenticator, close: {})
    }
}
