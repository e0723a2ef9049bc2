import CBOR
import PasskeydMacros

/// setMinPINLength's `subCommandParams` (CTAP 2.1 §6.11.4).
@MemberwiseInit
public struct SetMinPINLengthParameters: CTAPStructure, Sendable, Hashable {
    enum CodingKeys: Int, CodingKey {
        case newMinPINLength = 0x01
        case minPinLengthRPIDs, forceChangePin
    }

    /// The new minimum PIN length in code points; absent keeps the current one.
    @Unsigned public var newMinPINLength: Int?
    /// The RP IDs the minPinLength extension reports to (§12.4); replaces the list.
    public var minPinLengthRPIDs: [String]?
    /// Whether the current PIN must be changed before it is used again.
    public var forceChangePin: Bool?
}
