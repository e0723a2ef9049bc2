import CBOR

/// `lastEnrollSampleStatus` (CTAP 2.1 §6.7.4): what the sensor made of the last sample.
/// Every value but `good` leaves `remainingSamples` where it was.
public enum LastEnrollSampleStatus: UInt8, CTAPNumberedValue, Sendable, Hashable, CaseIterable {
    // 0x00 to 0x0B, in the table's order.
    case good = 0x00
    case tooHigh, tooLow, tooLeft, tooRight, tooFast, tooSlow, poorQuality, tooSkewed, tooShort
    case mergeFailure, exists
    /// 0x0C is reserved (the database being full is CTAP2_ERR_FP_DATABASE_FULL instead).
    case noUserActivity = 0x0D
    case noUserPresenceTransition

    public static var unknownValueStatus: CTAPStatus { .cborUnexpectedType }
}
