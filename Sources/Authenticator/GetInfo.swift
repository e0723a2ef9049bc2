import CTAP

extension Authenticator {
    /// authenticatorGetInfo (CTAP 2.1 §6.4): only what this device really does.
    func getInfo() async throws(CTAPStatus) -> GetInfoResponse {
        let state = try await deviceState()
        // clientPin: present because a PIN is supported, true once one is set.
        // alwaysUv: with it on, makeCredential needs user verification too (CTAP 2.1 §6.11.2).
        let alwaysUv = state.alwaysUv ?? false
        var options: [String: Bool] = [
            "rk": true, "up": true, "plat": false, "makeCredUvNotRqd": !alwaysUv,
            "clientPin": state.pinHash != nil, "pinUvAuthToken": true, "credMgmt": true,
            "largeBlobs": true, "authnrCfg": true, "alwaysUv": alwaysUv, "setMinPINLength": true,
        ]
        if let verifier { options["uv"] = verifier.isConfigured }
        let stored: Int
        do { stored = try await store.count() } catch { throw storeFailure(error) }
        return GetInfoResponse(
            versions: ["FIDO_2_0", "FIDO_2_1"],
            extensions: configuration.extensions.identifiers,
            aaguid: configuration.aaguid,
            options: options,
            maxMsgSize: configuration.maxMsgSize,
            // Protocol two first: the platform takes the first it supports.
            pinUvAuthProtocols: [PINUVAuthProtocolVersion.two.rawValue, PINUVAuthProtocolVersion.one.rawValue],
            maxCredentialCountInList: configuration.maxCredentialCountInList,
            maxCredentialIdLength: configuration.maxCredentialIDLength,
            transports: ["usb"],
            algorithms: configuration.algorithms.map { PublicKeyCredentialParameters(alg: $0.rawValue) },
            maxSerializedLargeBlobArray: configuration.maxSerializedLargeBlobArray,
            forcePINChange: state.forcePINChange,
            minPINLength: state.minPINLength,
            firmwareVersion: configuration.firmwareVersion,
            maxCredBlobLength: configuration.extensions.identifiers.contains(CredBlob.identifier) ? CredBlobExtension.maxLength : nil,
            maxRPIDsForSetMinPINLength: Self.maxRPIDsForSetMinPINLength,
            remainingDiscoverableCredentials: max(0, store.capacity - stored))
    }
}
