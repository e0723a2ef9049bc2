import CBOR
import Foundation

/// Something the device did, as `passkeyctl watch` shows it (docs/testing-your-relying-party.md).
/// Events name credentials and accounts, never a secret: no keys, PINs, tokens or blobs.
public struct DeviceEvent: Sendable, Equatable {
    public enum Kind: String, Sendable, CaseIterable {
        case credentialAdded = "credential.added"
        case credentialAsserted = "credential.asserted"
        case credentialDeleted = "credential.deleted"
        case credentialUpdated = "credential.updated"
        case promptPending = "prompt.pending"
        case promptAnswered = "prompt.answered"
        case pinSet = "pin.set"
        case pinChanged = "pin.changed"
        case reset = "reset"
        case faultFired = "fault.fired"
    }

    public var kind: Kind
    /// Milliseconds are kept; the wire carries Unix time in milliseconds.
    public var time: Date
    public var rpID: String?
    public var credentialID: [UInt8]?
    public var userName: String?
    public var signCount: UInt32?
    /// What else the kind needs: the fault's name, the prompt's kind and answer.
    public var detail: String?
    /// Events this watcher missed just before this one because it read too slowly.
    public var dropped: Int = 0

    public init(kind: Kind, time: Date = Date(), rpID: String? = nil, credentialID: [UInt8]? = nil,
                userName: String? = nil, signCount: UInt32? = nil, detail: String? = nil) {
        self.kind = kind
        self.time = time
        self.rpID = rpID
        self.credentialID = credentialID
        self.userName = userName
        self.signCount = signCount
        self.detail = detail
    }

    public var cbor: CBORValue {
        var map: [CBORValue: CBORValue] = [
            "kind": .textString(kind.rawValue),
            "time": CBORValue(Int64((time.timeIntervalSince1970 * 1000).rounded())),
        ]
        if let rpID { map["rpId"] = .textString(rpID) }
        if let credentialID { map["credentialId"] = .byteString(credentialID) }
        if let userName { map["userName"] = .textString(userName) }
        if let signCount { map["signCount"] = .unsigned(UInt64(signCount)) }
        if let detail { map["detail"] = .textString(detail) }
        if dropped > 0 { map["dropped"] = CBORValue(dropped) }
        return .map(map)
    }

    public init(cbor: CBORValue) throws(CTAPStatus) {
        let map = try CBORMap(cbor)
        guard let kind = Kind(rawValue: try map.required("kind", CBORRead.text)) else { throw .invalidParameter }
        self.kind = kind
        time = Date(timeIntervalSince1970: TimeInterval(try map.required("time", CBORRead.int)) / 1000)
        rpID = try map.optional("rpId", CBORRead.text)
        credentialID = try map.optional("credentialId", CBORRead.bytes)
        userName = try map.optional("userName", CBORRead.text)
        signCount = try map.optional("signCount", CBORRead.int).flatMap(UInt32.init(exactly:))
        detail = try map.optional("detail", CBORRead.text)
        dropped = try map.optional("dropped", CBORRead.int) ?? 0
    }

    public init(bytes: [UInt8]) throws(CTAPStatus) {
        let value: CBORValue
        do { value = try CBORDecoder.decode(bytes) } catch { throw .invalidCBOR }
        try self.init(cbor: value)
    }
}
