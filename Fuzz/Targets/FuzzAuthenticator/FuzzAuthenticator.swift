import Authenticator
import CBOR
import CTAP
import Crypto
import FuzzSupport
import LibFuzzerDriver

/// The whole authenticator, fresh for each input, fed a sequence of steps from several callers so
/// that state spanning commands (getNextAssertion, PIN tokens, credential management
/// enumerations, each caller's conversation) is reached.
/// Every answer must be a status byte, followed by CBOR only on success (CTAP 2.1 §8.1).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzAuthenticator(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let input = FuzzInput(start, count)
    waitFor {
        var conversation = Conversation(input)
        await conversation.run()
    }
    return 0
}

/// The clock stands still, so no timeout depends on how fast an input runs.
private let poweredUp = ContinuousClock.now

/// A platform talking to one authenticator. Besides raw messages it can do what a fuzzer cannot
/// guess: the PIN protocol's key agreement, encryption and MACs (CTAP 2.1 §6.5), as python-fido2 does.
private struct Conversation {
    /// One step per tag, the tag taken modulo the count.
    enum Step: UInt8, CaseIterable {
        /// A whole CTAP2 message: command byte and parameters.
        case raw
        /// clientPIN setPIN with the PIN bytes from the input.
        case setPIN
        /// clientPIN changePIN from the last PIN set to the PIN bytes from the input.
        case changePIN
        /// A pinUvAuthToken for the last PIN set (or PIN bytes from the input) with the permissions and rpId from the input.
        case token
        /// makeCredential, getAssertion or credentialManagement authenticated with the token
        /// (without pinUvAuthParam when the command byte's top bit is set), credentials referenced.
        case authenticated
        /// Unplug and replug.
        case powerCycle
        /// Later steps come from another caller (connection and channel), chosen by the next byte.
        case switchCaller
        /// The current caller goes away (its connection closed or its channel resynchronised).
        case release
    }

    /// Three callers: enough for one to start a conversation another must not continue.
    static let callers = (1...3).map { CTAPCaller(connection: UInt64($0), channel: 0x1000 + UInt32($0)) }

    var input: FuzzInput
    let authenticator: Authenticator
    var caller = Self.callers[0]
    var version = PinUvAuthProtocolVersion.two
    var pin: [UInt8] = []
    var token: SymmetricKey?
    /// Credential IDs the authenticator has returned, for later requests to name: the fuzzer
    /// cannot guess a random ID, so the byte string CC n in a parameter stands for the n-th.
    var credentialIDs: [[UInt8]] = []

    init(_ input: FuzzInput) {
        self.input = input
        var configuration = Authenticator.Configuration()
        configuration.now = { poweredUp }
        let verifies = self.input.byte() & 1 == 1
        authenticator = Authenticator(
            store: InMemoryCredentialStore(), presence: ScriptedPresence.always(.approved),
            verifier: verifies ? ScriptedVerifier.always(.verified) : nil, configuration: configuration)
    }

    mutating func run() async {
        while !input.isAtEnd {
            let tag = input.byte()
            switch Step(rawValue: tag % UInt8(Step.allCases.count))! {
            case .raw: _ = await send(input.chunk())
            case .setPIN: await setPIN()
            case .changePIN: await changePIN()
            case .token: await obtainToken()
            case .authenticated: _ = await send(authenticatedMessage())
            case .powerCycle: await authenticator.powerCycle()
            case .switchCaller: caller = Self.callers[Int(input.byte()) % Self.callers.count]
            case .release: await authenticator.release(caller)
            }
        }
    }

    mutating func send(_ message: [UInt8]) async -> (status: UInt8, body: CBORValue?) {
        let answer = await authenticator.handle(message, from: caller, progress: { _ in })
        guard let status = answer.first else { fatalError("an empty answer") }
        let body = Array(answer.dropFirst())
        require(status == CTAPStatus.success.rawValue || body.isEmpty, "an error status with a body")
        require(CTAPStatus(rawValue: status) != nil, "a status outside CTAPStatus")
        guard !body.isEmpty else { return (status, nil) }
        guard let value = try? CBORDecoder.decode(body) else { fatalError("a response that is not one CBOR item") }
        require(CBOREncoder.encode(value) == body, "a response that is not canonical CBOR")
        remember(value, command: message.first)
        return (status, value)
    }

    /// Collects the credential IDs of a response: makeCredential's attested credential data
    /// (§6.1.2), getAssertion's and credential management's credential descriptors (§6.2.2, §6.8).
    mutating func remember(_ response: CBORValue, command: UInt8?) {
        if command == CTAPCommand.makeCredential.rawValue {
            guard let authData = try? MakeCredentialResponse(cbor: response).attestation.authenticatorData,
                  let id = (try? AuthenticatorData(bytes: authData))?.attestedCredentialData?.credentialID
            else { fatalError("a makeCredential success without a credential") }
            credentialIDs.append(id)
            return
        }
        for case .map(let entries) in response.mapValue?.values.map({ $0 }) ?? [] {
            if let id = entries["id"]?.bytesValue, entries["type"] == "public-key" { credentialIDs.append(id) }
        }
    }

    /// The byte string CC n stands for the n-th credential ID returned so far, at any depth.
    func referencingCredentials(_ value: CBORValue) -> CBORValue {
        switch value {
        case .byteString(let bytes) where bytes.count == 2 && bytes[0] == 0xCC && !credentialIDs.isEmpty:
            return .byteString(credentialIDs[Int(bytes[1]) % credentialIDs.count])
        case .array(let items):
            return .array(items.map(referencingCredentials))
        case .map(let entries):
            return .map(Dictionary(uniqueKeysWithValues: entries.map { ($0.key, referencingCredentials($0.value)) }))
        default:
            return value
        }
    }

    var implementation: any PinUvAuthProtocol { version.implementation }

    /// getKeyAgreement, then the platform's half (§6.5.5.4).
    mutating func keyAgreement() async -> (platformKey: COSEKey, secret: SymmetricKey)? {
        version = input.byte() & 1 == 0 ? .two : .one
        let request = ClientPINRequest(subCommand: .getKeyAgreement, pinUvAuthProtocol: version.rawValue)
        let (status, body) = await send([CTAPCommand.clientPIN.rawValue] + request.cbor.encoded)
        guard status == CTAPStatus.success.rawValue else { return nil }
        guard let body, let key = try? ClientPINResponse(cbor: body).keyAgreement else {
            fatalError("getKeyAgreement succeeded without a key")
        }
        guard let agreement = try? implementation.encapsulate(peerKey: key) else {
            fatalError("the authenticator's key agreement key is unusable")
        }
        return (agreement.platformKeyAgreement, agreement.sharedSecret)
    }

    /// The PIN padded to a whole number of AES blocks, at least 64 bytes (§6.5.5.5).
    static func padded(_ pin: [UInt8]) -> [UInt8] {
        let length = max(PINHash.paddedLength, (pin.count + 15) / 16 * 16)
        return pin + [UInt8](repeating: 0, count: length - pin.count)
    }

    mutating func setPIN() async {
        let newPIN = input.chunk()
        guard let (platformKey, secret) = await keyAgreement(),
              let newPinEnc = try? implementation.encrypt(key: secret, plaintext: Self.padded(newPIN))
        else { return }
        let request = ClientPINRequest(
            subCommand: .setPIN, pinUvAuthProtocol: version.rawValue, keyAgreement: platformKey,
            pinUvAuthParam: implementation.authenticate(key: secret, message: newPinEnc), newPinEnc: newPinEnc)
        if await send([CTAPCommand.clientPIN.rawValue] + request.cbor.encoded).status == CTAPStatus.success.rawValue {
            pin = newPIN
        }
    }

    mutating func changePIN() async {
        let newPIN = input.chunk()
        guard let (platformKey, secret) = await keyAgreement(),
              let newPinEnc = try? implementation.encrypt(key: secret, plaintext: Self.padded(newPIN)),
              let pinHashEnc = try? implementation.encrypt(key: secret, plaintext: PINHash.of(pin))
        else { return }
        let request = ClientPINRequest(
            subCommand: .changePIN, pinUvAuthProtocol: version.rawValue, keyAgreement: platformKey,
            pinUvAuthParam: implementation.authenticate(key: secret, message: newPinEnc + pinHashEnc),
            newPinEnc: newPinEnc, pinHashEnc: pinHashEnc)
        if await send([CTAPCommand.clientPIN.rawValue] + request.cbor.encoded).status == CTAPStatus.success.rawValue {
            pin = newPIN
        }
    }

    /// getPinToken when the permissions byte is zero, else getPinUvAuthTokenUsingPinWithPermissions
    /// (or …UsingUvWithPermissions when its top bit is set).
    mutating func obtainToken() async {
        let flags = input.byte()
        let permissions = input.byte() & 0x7F
        let rpID = String(validating: input.chunk(), as: UTF8.self).flatMap { $0.isEmpty ? nil : $0 }
        let tokenPIN = flags & 1 == 0 ? pin : input.chunk()
        guard let (platformKey, secret) = await keyAgreement(),
              let pinHashEnc = try? implementation.encrypt(key: secret, plaintext: PINHash.of(tokenPIN))
        else { return }
        let subCommand: ClientPINSubcommand = flags & 0x80 != 0 ? .getPinUvAuthTokenUsingUvWithPermissions
            : permissions == 0 ? .getPinToken : .getPinUvAuthTokenUsingPinWithPermissions
        let request = ClientPINRequest(
            subCommand: subCommand, pinUvAuthProtocol: version.rawValue, keyAgreement: platformKey,
            pinHashEnc: subCommand == .getPinUvAuthTokenUsingUvWithPermissions ? nil : pinHashEnc,
            permissions: permissions == 0 ? nil : PinUvAuthTokenPermissions(rawValue: UInt64(permissions)), rpId: rpID)
        let (status, body) = await send([CTAPCommand.clientPIN.rawValue] + request.cbor.encoded)
        guard status == CTAPStatus.success.rawValue else { return }
        guard let body, let encrypted = try? ClientPINResponse(cbor: body).pinUvAuthToken,
              let plain = try? implementation.decrypt(key: secret, ciphertext: encrypted)
        else { fatalError("a token was granted that the platform cannot read") }
        require(plain.count == 32, "a pinUvAuthToken that is not 32 bytes")
        token = SymmetricKey(data: plain)
    }

    /// The command byte and parameters from the input, with pinUvAuthParam and
    /// pinUvAuthProtocol computed over what each command authenticates (§6.1.2, §6.2.2, §6.8).
    mutating func authenticatedMessage() -> [UInt8] {
        let tagged = input.byte()
        let command = tagged & 0x7F
        let authenticates = tagged & 0x80 == 0
        let raw = input.chunk()
        let decoded = (try? CBORDecoder.decode(raw)).map(referencingCredentials)
        let parameters = decoded?.encoded ?? raw
        let token = token ?? SymmetricKey(data: [UInt8](repeating: 0, count: 32))
        let protocolNumber = CBORValue(version.rawValue)
        switch CTAPCommand(rawValue: command) {
        case .makeCredential?, .getAssertion?:
            // clientDataHash and the two PIN keys: 1, 8, 9 for makeCredential; 2, 6, 7 for getAssertion.
            let keys: (hash: CBORValue, param: CBORValue, version: CBORValue) = command == CTAPCommand.makeCredential.rawValue
                ? (1, 8, 9) : (2, 6, 7)
            guard authenticates, case .map(var entries)? = decoded else { return [command] + parameters }
            let clientDataHash = entries[keys.hash]?.bytesValue ?? []
            entries[keys.param] = .byteString(implementation.authenticate(key: token, message: clientDataHash))
            entries[keys.version] = protocolNumber
            return [command] + CBORValue.map(entries).encoded
        case .credentialManagement?, .credentialManagementPreview?:
            // The parameters are the subCommandParams bytes as sent: the MAC covers them verbatim.
            let subCommand = input.byte()
            guard authenticates else {
                return [command] + CBORValue.intKeyed([(1, CBORValue(subCommand)), (2, raw.isEmpty ? nil : decoded ?? .byteString(raw))]).encoded
            }
            let param = implementation.authenticate(key: token, message: [subCommand] + parameters)
            var message: [UInt8] = [command, parameters.isEmpty ? 0xA3 : 0xA4, 0x01]
            message += CBORValue(subCommand).encoded
            if !parameters.isEmpty { message += [0x02] + parameters }
            message += [0x03] + protocolNumber.encoded + [0x04] + CBORValue.byteString(param).encoded
            return message
        default:
            return [command] + parameters
        }
    }
}

/// The executable's entry point as SwiftPM links it (Package.swift): libFuzzer's driver.
@_cdecl("FuzzAuthenticator_main")
public func fuzzAuthenticatorMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    passkeyd_fuzzer_main(argc, argv)
}
