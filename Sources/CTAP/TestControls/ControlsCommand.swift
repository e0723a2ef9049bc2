import CBOR
import PasskeydMacros

/// The run-time controls a test changes while the daemon runs (docs/vendor-commands.md,
/// CONTROLS): Chrome's virtual authenticator's `setUserVerified`,
/// `setAutomaticPresenceSimulation` and `setResponseOverrideBits` (Chrome DevTools Protocol,
/// `WebAuthn` domain), and the answer to the next conditional (AutoFill) request. Every one
/// lives in the daemon's memory only: a restart is back to what the flags say.
@MemberwiseInit
public struct ControlSettings: Sendable, Hashable {
    /// Built-in user verification succeeds (true) or fails as a wrong finger does (false);
    /// nil: as `--uv` says.
    public var userVerified: Bool? = nil
    /// Presence is approved at once (true) or waits for PRESENCE, as under `--presence prompt`
    /// (false); nil: as `--presence` says.
    public var automaticPresence: Bool? = nil
    /// What every makeCredential and getAssertion reports wrongly until changed; in a `set`,
    /// nil leaves them as they are.
    public var responseOverrides: ResponseOverrides? = nil
    /// The credential the next conditional request is answered with, if a test named one.
    public var conditional: ConditionalAnswer? = nil

    /// The map's keys (docs/vendor-commands.md), the only place they are written.
    enum Key: String, CodingKey {
        case userVerified, automaticPresence, responseOverrides, conditional
    }

    public var cbor: CBORValue {
        .keyed(
            Key.self,
            [
                (.userVerified, userVerified.map(CBORValue.boolean)),
                (.automaticPresence, automaticPresence.map(CBORValue.boolean)),
                (.responseOverrides, responseOverrides?.cbor), (.conditional, conditional?.cbor)
            ])
    }

    public init(cbor: CBORValue) throws(CTAPStatus) {
        let map = try CBORMap(cbor)
        userVerified = try map.optional(Key.userVerified, CBORRead.bool)
        automaticPresence = try map.optional(Key.automaticPresence, CBORRead.bool)
        responseOverrides = try map.optional(Key.responseOverrides) { value throws(CTAPStatus) in
            try ResponseOverrides(cbor: value)
        }
        conditional = try map.optional(Key.conditional) { value throws(CTAPStatus) in
            try ConditionalAnswer(cbor: value)
        }
    }
}

/// Chrome's `setResponseOverrideBits`: each bit holds for every response until changed.
@MemberwiseInit
public struct ResponseOverrides: Sendable, Hashable {
    /// The signature does not verify (the `bogus-signature` fault).
    public var bogusSignature = false
    /// The UV flag is cleared in validly signed authenticator data (`clear-uv`).
    public var badUV = false
    /// The UP flag is cleared in validly signed authenticator data (`clear-up`).
    public var badUP = false

    /// The faults that report these bits.
    public var faults: [Fault] {
        (bogusSignature ? [.bogusSignature] : []) + (badUV ? [.clearUV] : []) + (badUP ? [.clearUP] : [])
    }

    enum Key: String, CodingKey {
        case bogusSignature, badUV, badUP
    }

    public var cbor: CBORValue {
        .keyed(
            Key.self,
            [(.bogusSignature, .boolean(bogusSignature)), (.badUV, .boolean(badUV)), (.badUP, .boolean(badUP))])
    }

    public init(cbor: CBORValue) throws(CTAPStatus) {
        let map = try CBORMap(cbor)
        bogusSignature = try map.optional(Key.bogusSignature, CBORRead.bool) ?? false
        badUV = try map.optional(Key.badUV, CBORRead.bool) ?? false
        badUP = try map.optional(Key.badUP, CBORRead.bool) ?? false
    }
}

/// The credential a conditional request (WebAuthn L3 §5.1.4.1, `mediation: "conditional"`) is
/// answered with, once, without the person picking it: what Chrome's virtual authenticator does
/// for every conditional request, here only when a test asked for it.
@MemberwiseInit
public struct ConditionalAnswer: Sendable, Hashable {
    public var credentialID: [UInt8]
    public var rpID: String

    enum Key: String, CodingKey {
        case credentialId, rpId
    }

    public var cbor: CBORValue {
        .keyed(Key.self, [(.credentialId, .byteString(credentialID)), (.rpId, .textString(rpID))])
    }

    public init(cbor: CBORValue) throws(CTAPStatus) {
        let map = try CBORMap(cbor)
        credentialID = try map.required(Key.credentialId, CBORRead.bytes)
        rpID = try map.required(Key.rpId, CBORRead.text)
        guard !credentialID.isEmpty, !rpID.isEmpty else { throw .invalidParameter }
    }
}

/// The CONTROLS vendor command's request (docs/vendor-commands.md). The reply is a status byte,
/// then (on success) the settings map afterwards; `takeConditional`'s reply map carries the
/// answer it took, if any.
public enum ControlsCommand: Sendable, Equatable {
    /// The settings as they are.
    case get
    /// Changes what the map names; a member it leaves out stays as it is. `clearConditional`
    /// drops a conditional answer nobody took.
    case set(ControlSettings, clearConditional: Bool)
    /// Every setting back to what the daemon's flags say.
    case reset
    /// The conditional answer for `rpID`, handed out once (the browser host asks for it when a
    /// conditional request arrives); an answer for another RP stays.
    case takeConditional(rpID: String)

    enum Key: String, CodingKey {
        case op, settings, clearConditional, rpId
    }

    public var cbor: CBORValue {
        switch self {
        case .get: .keyed(Key.self, [(.op, "get")])
        case .set(let settings, let clear):
            .keyed(
                Key.self,
                [(.op, "set"), (.settings, settings.cbor), (.clearConditional, clear ? .boolean(true) : nil)])
        case .reset: .keyed(Key.self, [(.op, "reset")])
        case .takeConditional(let rpID): .keyed(Key.self, [(.op, "takeConditional"), (.rpId, .textString(rpID))])
        }
    }

    public init(bytes: [UInt8]) throws(CTAPStatus) {
        let value: CBORValue
        do { value = try CBORDecoder.decode(bytes) } catch { throw .invalidCBOR }
        let map = try CBORMap(value)
        switch try map.required(Key.op, CBORRead.text) {
        case "get": self = .get
        case "reset": self = .reset
        case "set":
            let settings = try map.required(Key.settings) { $0 }
            self = .set(
                try ControlSettings(cbor: settings),
                clearConditional: try map.optional(Key.clearConditional, CBORRead.bool) ?? false)
        case "takeConditional": self = .takeConditional(rpID: try map.required(Key.rpId, CBORRead.text))
        default: throw .invalidSubcommand
        }
    }
}
