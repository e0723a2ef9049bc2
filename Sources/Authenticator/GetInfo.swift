import CTAP

extension Authenticator {
    /// authenticatorGetInfo (CTAP 2.1 §6.4): only what this device really does.
    func getInfo() async throws(CTAPStatus) -> GetInfoResponse {
        let state = try await deviceState()
        // clientPin: present because a PIN is supported, true once one is set.
        var options: [String: Bool] = ["rk": true, "up": true, "plat": false, "clientPin": state.pinHash != nil]
        if let verifier { options["uv"] = verifier.isConfigured }
        let profile = configuration.profile
        // Protocol two first where offered: the platform takes the first it supports.
        let pinUvAuthProtocols = configuration.rules.pinUvAuthProtocols.map(\.rawValue)
        guard configuration.rules.infoMembers == .ctap21 else {
            // CTAP 2.0 §5.4: members 0x01–0x06 only.
            return GetInfoResponse(
                versions: profile.versions, extensions: configuration.extensions.identifiers, aaguid: configuration.aaguid,
                options: options, maxMsgSize: configuration.maxMsgSize, pinUvAuthProtocols: pinUvAuthProtocols)
        }
        options.merge(["makeCredUvNotRqd": true, "pinUvAuthToken": true, "credMgmt": true]) { $1 }
        let stored: Int
        do { stored = try await store.count() } catch { throw storeFailure(error) }
        return GetInfoResponse(
            versions: profile.versions,
            extensions: configuration.extensions.identifiers,
            aaguid: configuration.aaguid,
            options: options,
            maxMsgSize: configuration.maxMsgSize,
            pinUvAuthProtocols: pinUvAuthProtocols,
            maxCredentialCountInList: configuration.maxCredentialCountInList,
            maxCredentialIdLength: configuration.maxCredentialIDLength,
            transports: ["usb"],
            algorithms: configuration.algorithms.map { PublicKeyCredentialParameters(alg: $0.rawValue) },
            forcePINChange: state.forcePINChange,
            minPINLength: state.minPINLength,
            firmwareVersion: configuration.firmwareVersion,
            remainingDiscoverableCredentials: max(0, store.capacity - stored))
    }
}
