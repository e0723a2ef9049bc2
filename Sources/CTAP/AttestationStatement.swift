import CBOR
import PasskeydMacros

/// An attestation statement with its format (WebAuthn L3 §8).
public enum AttestationStatement: Sendable, Hashable {
    /// `none` (WebAuthn L3 §8.7): an empty statement.
    case none
    /// `packed` (WebAuthn L3 §8.2): `alg` and `sig`; self attestation when `x5c` is absent.
    case packed(alg: Int, sig: [UInt8], x5c: [[UInt8]]?)
    /// `fido-u2f` (WebAuthn L3 §8.6): a CTAP1/U2F registration's signature and its one
    /// attestation certificate, as a client builds it from U2F_REGISTER's response (CTAP 2.1 §10.2).
    case fidoU2F(sig: [UInt8], x5c: [[UInt8]])

    /// A packed statement's keys (WebAuthn L3 §8.2), the only place they are written;
    /// `sig` and `x5c` are fido-u2f's too (§8.6).
    enum PackedKey: String, CodingKey {
        case alg, sig, x5c
    }

    public var format: String {
        switch self {
        case .none: return "none"
        case .packed: return "packed"
        case .fidoU2F: return "fido-u2f"
        }
    }

    public var cbor: CBORValue {
        switch self {
        case .none:
            return .map([:])
        case .packed(let alg, let sig, let x5c):
            return .keyed(
                PackedKey.self,
                [
                    (.alg, CBORValue(alg)), (.sig, .byteString(sig)),
                    (.x5c, x5c.map { .array($0.map { .byteString($0) }) })
                ])
        case .fidoU2F(let sig, let x5c):
            return .keyed(PackedKey.self, [(.sig, .byteString(sig)), (.x5c, .array(x5c.map { .byteString($0) }))])
        }
    }

    /// Parses a statement of a known format; other formats are `.invalidParameter`.
    public init(format: String, cbor: CBORValue) throws(CTAPStatus) {
        let map = try CBORMap(cbor)
        switch format {
        case "none":
            guard map.entries.isEmpty else { throw .invalidParameter }
            self = .none
        case "packed":
            let x5c = try map.optional(PackedKey.x5c, CBORRead.bytesArray)
            self = .packed(
                alg: try map.required(PackedKey.alg, CBORRead.int),
                sig: try map.required(PackedKey.sig, CBORRead.bytes), x5c: x5c)
        case "fido-u2f":
            // §8.6: exactly one certificate.
            let x5c = try map.required(PackedKey.x5c, CBORRead.bytesArray)
            guard x5c.count == 1 else { throw .invalidParameter }
            self = .fidoU2F(sig: try map.required(PackedKey.sig, CBORRead.bytes), x5c: x5c)
        default:
            throw .invalidParameter
        }
    }
}

/// The WebAuthn attestation object (WebAuthn L3 §6.5.4): `fmt`, `authData`, `attStmt`.
@MemberwiseInit
public struct AttestationObject: Sendable, Hashable {
    public var authenticatorData: [UInt8]
    public var statement: AttestationStatement

    /// The object's keys (WebAuthn L3 §6.5.4), the only place they are written.
    enum Key: String, CodingKey {
        case fmt, authData, attStmt
    }

    public var cbor: CBORValue {
        .keyed(
            Key.self,
            [
                (.fmt, .textString(statement.format)), (.authData, .byteString(authenticatorData)),
                (.attStmt, statement.cbor)
            ])
    }

    public init(cbor: CBORValue) throws(CTAPStatus) {
        let map = try CBORMap(cbor)
        authenticatorData = try map.required(Key.authData, CBORRead.bytes)
        statement = try AttestationStatement(
            format: try map.required(Key.fmt, CBORRead.text), cbor: try map.required(Key.attStmt, CBORRead.any))
    }
}
