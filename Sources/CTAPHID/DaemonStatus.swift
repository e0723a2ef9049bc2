import CBOR
import CTAP
import Foundation
import PasskeydMacros

/// The STATUS vendor command's reply (docs/vendor-commands.md): a CBOR map with
/// text keys, encoded by the daemon and decoded by passkeyctl from this one type.
@MemberwiseInit
public struct DaemonStatus: Sendable, Equatable {
    public var version: String
    public var pid: Int
    public var socket: String
    /// Whole seconds: the wire carries Unix time as an integer.
    public var startedAt: Date
    /// `presence`, `uv` or `none`.
    public var pending: String
    /// The pending prompt's id, which PRESENCE may name so an answer reaches only that prompt.
    public var promptID: UInt64?
    /// The relying party the pending prompt is for, when it has one.
    public var rpID: String?
    /// The profile of a device that answers CTAP1/U2F alone (no CTAP2 getInfo).
    public static let u2fOnlyProfile = "u2f"

    /// The device profile (`u2f`, `fido2.0`, `fido2.1`); absent from older daemons.
    public var profile: String?
    /// How the daemon answers for the person: its `--presence` and `--uv` modes, and whether
    /// prompts also reach the desktop; absent from older daemons.
    public var presence: String?
    public var uv: String?
    public var desktopPrompt: Bool?

    public var cbor: CBORValue {
        var map: [CBORValue: CBORValue] = [
            "version": .textString(version),
            "pid": CBORValue(pid),
            "socket": .textString(socket),
            "startedAt": CBORValue(Int64(startedAt.timeIntervalSince1970)),
            "pending": .textString(pending)
        ]
        if let promptID { map["promptId"] = .unsigned(promptID) }
        if let rpID { map["rpId"] = .textString(rpID) }
        if let profile { map["profile"] = .textString(profile) }
        if let presence { map["presence"] = .textString(presence) }
        if let uv { map["uv"] = .textString(uv) }
        if let desktopPrompt { map["desktopPrompt"] = .boolean(desktopPrompt) }
        return .map(map)
    }

    /// Reads the map; `pending` may be absent (older daemons) and then means `none`.
    public init(cbor: CBORValue) throws(CTAPStatus) {
        let map = try CBORMap(cbor)
        version = try map.required("version", CBORRead.text)
        pid = try map.required("pid", CBORRead.int)
        socket = try map.required("socket", CBORRead.text)
        startedAt = Date(timeIntervalSince1970: TimeInterval(try map.required("startedAt", CBORRead.int)))
        pending = try map.optional("pending", CBORRead.text) ?? "none"
        promptID = try map.optional("promptId", CBORRead.unsigned)
        rpID = try map.optional("rpId", CBORRead.text)
        profile = try map.optional("profile", CBORRead.text)
        presence = try map.optional("presence", CBORRead.text)
        uv = try map.optional("uv", CBORRead.text)
        desktopPrompt = try map.optional("desktopPrompt", CBORRead.bool)
    }

    /// Decodes the STATUS reply's bytes (docs/vendor-commands.md).
    public init(bytes: [UInt8]) throws(CTAPStatus) {
        let value: CBORValue
        do { value = try CBORDecoder.decode(bytes) } catch { throw .invalidCBOR }
        try self.init(cbor: value)
    }
}
