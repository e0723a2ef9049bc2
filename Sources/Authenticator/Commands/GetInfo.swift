import CTAP
import Crypto

extension Authenticator {
    /// authenticatorGetInfo (CTAP 2.1 §6.4): only what this device really does.
    func getInfo() async throws(CTAPStatus) -> GetInfoResponse {
        let state = try await deviceState()
        // clientPin: present because a PIN is supported, true once one is set.
        var options: [String: Bool] = [
            "rk": configuration.profile.residentKeys, "up": true, "plat": configuration.profile.isPlatform,
            "clientPin": state.pinHash != nil
        ]
        if verifier != nil { options["uv"] = try await builtInUVConfigured() }
        let profile = configuration.profile
        // Protocol two first where offered: the platform takes the first it supports.
        let pinUvAuthProtocols = configuration.rules.pinUvAuthProtocols.map(\.rawValue)
        switch configuration.rules.infoMembers {
        case .ctap20:
            // CTAP 2.0 §5.4: members 0x01–0x06 only.
            return GetInfoResponse(
                versions: profile.versions, extensions: configuration.extensions.identifiers,
                aaguid: configuration.aaguid,
                options: options, maxMsgSize: configuration.maxMsgSize, pinUvAuthProtocols: pinUvAuthProtocols)
        case .ctap21Preview:
            // The review draft: members 0x01–0x0A; the prototype commands by their option names (2.1 §6.4).
            options["credentialMgmtPreview"] = true
            if hasFingerprintReader { options["userVerificationMgmtPreview"] = true }
            return GetInfoResponse(
                versions: profile.versions, extensions: configuration.extensions.identifiers,
                aaguid: configuration.aaguid,
                options: options, maxMsgSize: configuration.maxMsgSize, pinUvAuthProtocols: pinUvAuthProtocols,
                maxCredentialCountInList: configuration.maxCredentialCountInList,
                maxCredentialIdLength: configuration.maxCredentialIDLength, transports: profile.transports,
                algorithms: configuration.algorithms.map { PublicKeyCredentialParameters(alg: $0.rawValue) })
        case .ctap21, .ctap22:
            break
        }
        // alwaysUv: with it on, makeCredential needs user verification too (CTAP 2.1 §6.11.2).
        let alwaysUv = state.alwaysUv ?? false
        options.merge([
            "makeCredUvNotRqd": !alwaysUv, "pinUvAuthToken": true, "credMgmt": true,
            "largeBlobs": true, "authnrCfg": true, "alwaysUv": alwaysUv, "setMinPINLength": true,
            // CTAP 2.2 §6.4: the persistent read-only credential-management token (pcmr).
            "perCredMgmtRO": true
        ]) { $1 }
        // bioEnroll: present with a fingerprint sensor, true once a finger is enrolled (CTAP 2.1 §6.7).
        if hasFingerprintReader { options["bioEnroll"] = try await !enrolledFingerprints().isEmpty }
        // ep: present where enterprise attestation can be enabled, true once it is (CTAP 2.1 §7.1).
        if isEnterpriseAttestationCapable(state) { options["ep"] = state.enterpriseAttestation ?? false }
        let stored: Int
        do { stored = try await store.count() } catch { throw storeFailure(error) }
        var info = GetInfoResponse(
            versions: profile.versions,
            extensions: configuration.extensions.identifiers,
            aaguid: configuration.aaguid,
            options: options,
            maxMsgSize: configuration.maxMsgSize,
            pinUvAuthProtocols: pinUvAuthProtocols,
            maxCredentialCountInList: configuration.maxCredentialCountInList,
            maxCredentialIdLength: configuration.maxCredentialIDLength,
            transports: profile.transports,
            algorithms: configuration.algorithms.map { PublicKeyCredentialParameters(alg: $0.rawValue) },
            maxSerializedLargeBlobArray: configuration.maxSerializedLargeBlobArray,
            forcePINChange: state.forcePINChange,
            minPINLength: state.minPINLength,
            firmwareVersion: configuration.firmwareVersion,
            maxCredBlobLength: configuration.extensions.identifiers.contains(CredBlob.identifier)
                ? CredBlobExtension.maxLength : nil,
            maxRPIDsForSetMinPINLength: Self.maxRPIDsForSetMinPINLength,
            uvModality: hasFingerprintReader ? FingerprintSensor.uvModality : nil,
            remainingDiscoverableCredentials: max(0, store.capacity - stored),
            encIdentifier: try Self.encryptedIdentifier(state))
        if configuration.rules.infoMembers == .ctap22 { try await addCTAP22Members(to: &info, state) }
        return info
    }

    /// The getInfo members CTAP 2.2 §6.4 adds, each what this device does.
    private func addCTAP22Members(to info: inout GetInfoResponse, _ state: DeviceState) async throws(CTAPStatus) {
        // The default format first: `none` when --attestation none, else packed (none on request).
        info.attestationFormats = configuration.attestation == .none ? ["none"] : ["packed", "none"]
        if verifier != nil { info.uvCountSinceLastPinEntry = pinUV.uvCountSinceLastPinEntry }
        // authenticatorReset asks for an ordinary touch (Reset.swift), on the one transport there is.
        info.longTouchForReset = false
        info.transportsForReset = configuration.profile.transports
        // No policy beyond minPINLength; a PIN is at most 63 bytes of UTF-8 (PINHash.maxPINBytes).
        info.pinComplexityPolicy = false
        info.maxPINLength = PINHash.maxPINBytes
        var config = Self.configSubcommands
        if isEnterpriseAttestationCapable(state) { config.insert(.enableEnterpriseAttestation) }
        info.authenticatorConfigCommands = config.map { Int($0.rawValue) }.sorted()
        if let token = state.persistentToken {
            info.encCredStoreState = try PersistentTokenEncryption.encrypt(
                try await credentialStoreState(), token: token.key, for: .encCredStoreState)
        }
    }

    /// The credential store's state for encCredStoreState (CTAP 2.2 §6.4): 16 bytes of SHA-256 over
    /// every discoverable credential's ID and user entity, in ID order, so a registration, a
    /// deletion or a user update changes it and a platform's cached enumeration can be checked.
    /// Read only when the persistent token's holder can decrypt it.
    private func credentialStoreState() async throws(CTAPStatus) -> [UInt8] {
        let all: [CredentialSource]
        do { all = try await store.allCredentials() } catch { throw storeFailure(error) }
        var hash = SHA256()
        for source in all.sorted(by: { $0.id.lexicographicallyPrecedes($1.id) }) {
            for part in [source.id, source.user.cbor.encoded] {
                hash.update(data: withUnsafeBytes(of: UInt32(part.count).bigEndian, Array.init) + part)
            }
        }
        return Array(hash.finalize().prefix(16))  // one AES block
    }

    /// encIdentifier (CTAP 2.2 §6.4): the device identifier, readable only with the persistent token.
    private static func encryptedIdentifier(_ state: DeviceState) throws(CTAPStatus) -> [UInt8]? {
        guard let token = state.persistentToken, let identifier = state.deviceIdentifier else { return nil }
        return try PersistentTokenEncryption.encrypt(identifier, token: token.key, for: .encIdentifier)
    }
}
