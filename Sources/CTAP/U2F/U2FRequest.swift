/// A U2F command as CTAPHID_MSG carries it (FIDO U2F Raw Message Formats §3.1, §4–§6),
/// read from its APDU: class 0, the instruction naming the command, its data checked
/// for length. Every refusal is the status word the host is answered with.
public enum U2FRequest: Sendable, Equatable {
    /// U2F_REGISTER (INS 0x01).
    case register(U2FRegisterRequest)
    /// U2F_AUTHENTICATE (INS 0x02).
    case authenticate(U2FAuthenticateRequest)
    /// U2F_VERSION (INS 0x03).
    case version

    /// The instruction bytes of the three commands.
    public enum Instruction: UInt8, Sendable {
        case register = 0x01
        case authenticate = 0x02
        case version = 0x03
    }

    /// The raw bytes of a CTAPHID_MSG payload.
    public init(apdu bytes: [UInt8]) throws(StatusWord) {
        try self.init(apdu: CommandAPDU(bytes: bytes))
    }

    public init(apdu: CommandAPDU) throws(StatusWord) {
        // §3.1: CLA is 0 for every U2F command.
        guard apdu.cla == 0 else { throw .classNotSupported }
        guard let instruction = Instruction(rawValue: apdu.ins) else { throw .instructionNotSupported }
        switch instruction {
        case .register:
            self = .register(try U2FRegisterRequest(data: apdu.data))
        case .authenticate:
            self = .authenticate(try U2FAuthenticateRequest(control: apdu.p1, data: apdu.data))
        case .version:
            // §6.1: no request data.
            guard apdu.data.isEmpty else { throw .wrongLength }
            self = .version
        }
    }

    /// The APDU a host sends for this request (extended length, Le 0 as python-fido2 and libfido2 do).
    public var apdu: CommandAPDU {
        switch self {
        case .register(let request):
            return CommandAPDU(
                ins: Instruction.register.rawValue, data: request.challenge + request.application,
                maxResponseLength: 65536)
        case .authenticate(let request):
            return CommandAPDU(
                ins: Instruction.authenticate.rawValue, p1: request.control.rawValue,
                data: request.challenge + request.application + [UInt8(request.keyHandle.count)] + request.keyHandle,
                maxResponseLength: 65536)
        case .version:
            return CommandAPDU(ins: Instruction.version.rawValue, maxResponseLength: 65536)
        }
    }
}
