/// The status word ending every response APDU (ISO 7816-4 §5.1.3; FIDO U2F Raw Message
/// Formats §3.3). A U2F command that fails throws the one it answers with.
public enum StatusWord: UInt16, Error, Sendable, Equatable {
    /// SW_NO_ERROR: the command completed.
    case noError = 0x9000
    /// SW_CONDITIONS_NOT_SATISFIED: user presence is needed (hosts poll again), or a
    /// check-only authentication found a key handle of ours.
    case conditionsNotSatisfied = 0x6985
    /// SW_WRONG_DATA: a key handle this device did not make for this application, or a bad control byte.
    case wrongData = 0x6A80
    /// SW_WRONG_LENGTH: the APDU's lengths disagree with its bytes or with the command.
    case wrongLength = 0x6700
    /// SW_INS_NOT_SUPPORTED.
    case instructionNotSupported = 0x6D00
    /// SW_CLA_NOT_SUPPORTED.
    case classNotSupported = 0x6E00
    /// No precise diagnosis (ISO 7816-4): the device itself failed.
    case noPreciseDiagnosis = 0x6F00

    /// The two bytes that end a response APDU.
    public var bytes: [UInt8] { [UInt8(rawValue >> 8), UInt8(rawValue & 0xFF)] }
}
