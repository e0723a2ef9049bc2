import CBOR

/// `lastEnrollSampleStatus` (CTAP 2.1 §6.7.4): what the sensor made of the last sample.
/// Every value but `good` leaves `remainingSamples` where it was.
public enum LastEnrollSampleStatus: UInt8, CBORMember, Sendable, Hashable, CaseIterable {
    case good = 0x00
    case tooHigh = 0x01
    case tooLow = 0x02
    case tooLeft = 0x03
    case tooRight = 0x04
    case tooFast = 0x05
    case tooSlow = 0x06
    case poorQuality = 0x07
    case tooSkewed = 0x08
    case tooShort = 0x09
    case mergeFailure = 0x0A
    case exists = 0x0B
    /// 0x0C is reserved (the database being full is CTAP2_ERR_FP_DATABASE_FULL instead).
    case noUserActivity = 0x0D
    case noUserPresenceTransition = 0x0E

    public init(cbor: CBORValue) throws(CTAPStatus) {
        guard let status = cbor.unsignedValue.flatMap({ UInt8(exactly: $0) }).flatMap(Self.init(rawValue:)) else {
            throw .cborUnexpectedType
        }
        self = status
    }

    public var cbor: CBORValue { .unsigned(UInt64(rawValue)) }
}
