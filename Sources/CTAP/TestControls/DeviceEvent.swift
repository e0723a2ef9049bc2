import CBOR
import Foundation
import PasskeydMacros

/// Something the device did, as `passkeyctl watch` shows it (docs/testing-your-relying-party.md).
/// Events name credentials and accounts, never a secret: no keys, PINs, tokens or blobs.
@MemberwiseInit
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
    public var time: Date = Date()
    public var rpID: String?
    public var credentialID: [UInt8]?
    public var userName: String?
    public var signCount: UInt32?
    /// What else the kind needs: the fault's name, the prompt's kind and answer.
    public var detail: String?
    /// Events this watcher missed just before this one because it read too slowly.
    public var dropped: Int = 0

    /// The event map's keys (docs/vendor-commands.md), the only place they are written.
    enum Key: String, CodingKey {
        case kind, time
        case rpID = "rpId"
        case credentialID = "credentialId"
        case userName, signCount, detail, dropped
    }

    public var cbor: CBORValue {
        .keyed(
            Key.self,
            [
                (.kind, .textString(kind.rawValue)),
                (.time, CBORValue(Int64((time.timeIntervalSince1970 * 1000).rounded()))),
                (.rpID, rpID.map(CBORValue.textString)),
                (.credentialID, credentialID.map(CBORValue.byteString)),
                (.userName, userName.map(CBORValue.textString)),
                (.signCount, signCount.map { .unsigned(UInt64($0)) }),
                (.detail, detail.map(CBORValue.textString)),
                (.dropped, dropped > 0 ? CBORValue(dropped) : nil)
            ])
    }

    public init(cbor: CBORValue) throws(CTAPStatus) {
        let map = try CBORMap(cbor)
        guard let kind = Kind(rawValue: try map.required(Key.kind, CBORRead.text)) else { throw .invalidParameter }
        self.kind = kind
        time = Date(timeIntervalSince1970: TimeInterval(try map.required(Key.time, CBORRead.int)) / 1000)
        rpID = try map.optional(Key.rpID, CBORRead.text)
        credentialID = try map.optional(Key.credentialID, CBORRead.bytes)
        userName = try map.optional(Key.userName, CBORRead.text)
        signCount = try map.optional(Key.signCount, CBORRead.int).flatMap(UInt32.init(exactly:))
        detail = try map.optional(Key.detail, CBORRead.text)
        dropped = try map.optional(Key.dropped, CBORRead.int) ?? 0
    }

    public init(bytes: [UInt8]) throws(CTAPStatus) {
        let value: CBORValue
        do { value = try CBORDecoder.decode(bytes) } catch { throw .invalidCBOR }
        try self.init(cbor: value)
    }
}
