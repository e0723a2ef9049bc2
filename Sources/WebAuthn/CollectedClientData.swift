import Foundation
import PasskeydMacros

/// CollectedClientData (WebAuthn L3 §5.8.1): the client's view of a ceremony, which the
/// authenticator signs through its hash.
@MemberwiseInit
public struct CollectedClientData: Sendable, Hashable {
    /// The ceremony the client data was collected for.
    public enum CeremonyType: String, Sendable, Hashable, CaseIterable {
        case create = "webauthn.create"
        case get = "webauthn.get"
    }

    /// Why bytes are not client data.
    public enum ParseError: Error, Sendable, Hashable {
        /// Not UTF-8 JSON, or a member missing or of the wrong JSON type.
        case malformed
        /// A `type` other than `webauthn.create` or `webauthn.get`.
        case unknownType(String)
        /// A `challenge` that is not base64url.
        case invalidChallenge
    }

    public var type: CeremonyType
    public var challenge: [UInt8]
    /// The caller's origin, serialized (for example `https://example.com`).
    public var origin: String
    public var crossOrigin = false
    /// The top-level origin, present only for a cross-origin call from an iframe.
    public var topOrigin: String?

    /// The JSON-compatible serialization (WebAuthn L3 §5.8.1.1): `type`, `challenge`, `origin`,
    /// `crossOrigin` in that order, then `topOrigin` when present, so that the limited
    /// verification algorithm (§5.8.1.2) can check it by prefix.
    public var serialized: [UInt8] {
        var out = Array(#"{"type":"#.utf8)
        Self.appendCCDString(type.rawValue, to: &out)
        out += Array(#","challenge":"#.utf8)
        Self.appendCCDString(Base64URL.encode(challenge), to: &out)
        out += Array(#","origin":"#.utf8)
        Self.appendCCDString(origin, to: &out)
        out += Array(#","crossOrigin":"#.utf8)
        out += Array((crossOrigin ? "true" : "false").utf8)
        if let topOrigin {
            out += Array(#","topOrigin":"#.utf8)
            Self.appendCCDString(topOrigin, to: &out)
        }
        out.append(UInt8(ascii: "}"))
        return out
    }

    /// CCDToString (WebAuthn L3 §5.8.1.1): a JSON string in which only `"`, `\` and
    /// code points below U+0020 are escaped, the latter as `\u` with four lowercase hex digits.
    static func appendCCDString(_ string: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        for scalar in string.unicodeScalars {
            switch scalar.value {
            case 0x22: out += [0x5C, 0x22]
            case 0x5C: out += [0x5C, 0x5C]
            case 0x20...:
                out += Array(String(scalar).utf8)
            default:
                let hex = Array("0123456789abcdef".utf8)
                out += [
                    0x5C, UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"),
                    hex[Int(scalar.value >> 4)], hex[Int(scalar.value & 0xF)]
                ]
            }
        }
        out.append(UInt8(ascii: "\""))
    }

    private struct Wire: Decodable {
        var type: String
        var challenge: String
        var origin: String
        var crossOrigin: Bool?
        var topOrigin: String?
    }

    /// Parses client data with a full JSON parser, as relying parties do (WebAuthn L3 §7.1
    /// steps 5–6, §7.2 steps 8–9); a leading byte order mark is stripped, members other than
    /// the five above are ignored.
    public init(json bytes: [UInt8]) throws(ParseError) {
        var bytes = bytes[...]
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }
        guard String(validating: bytes, as: UTF8.self) != nil else { throw .malformed }
        let wire: Wire
        do { wire = try JSONDecoder().decode(Wire.self, from: Data(bytes)) } catch { throw .malformed }
        guard let type = CeremonyType(rawValue: wire.type) else { throw .unknownType(wire.type) }
        let challenge: [UInt8]
        do { challenge = try Base64URL.decode(wire.challenge) } catch { throw .invalidChallenge }
        self.init(
            type: type, challenge: challenge, origin: wire.origin,
            crossOrigin: wire.crossOrigin ?? false, topOrigin: wire.topOrigin)
    }
}
