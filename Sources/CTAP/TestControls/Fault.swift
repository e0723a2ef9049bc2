/// A deliberate misbehaviour a test arms (docs/testing-your-relying-party.md), named as
/// `passkeyctl fault set` spells it. Faults change what the device reports or does for one
/// transaction; they never change what is stored.
public enum Fault: Sendable, Hashable {
    /// A signature (assertion or packed attestation) that does not verify.
    case bogusSignature
    /// The UP flag cleared in authenticator data that is still validly signed.
    case clearUP
    /// The UV flag cleared in validly signed authenticator data.
    case clearUV
    /// The UV flag set although nobody was verified.
    case setUV
    /// A signature counter of 0.
    case counterZero
    /// The previous signature counter again: it did not advance.
    case counterFreeze
    /// A counter this much lower than the true one (a cloned key's signal, WebAuthn L3 §6.1.1).
    case counterRewind(UInt32)
    /// The answer comes this many milliseconds late; keepalives keep flowing meanwhile.
    case latency(milliseconds: Int)
    /// User presence is refused (`CTAP2_ERR_OPERATION_DENIED`), as if the user declined.
    case deny
    /// The device vanishes mid-transaction: no answer, the connection closes, volatile state is lost.
    case drop
    /// The command answers this status instead of running.
    case status(CTAPStatus)

    /// Reads the command line's spelling: `bogus-signature`, `counter-rewind=N`, `latency=MS`,
    /// `status=NAME` (a spec name such as `CTAP2_ERR_PIN_INVALID` or `PIN_INVALID`, or `0x31`).
    public init(parsing text: String) throws(FaultSyntaxError) {
        let (name, argument) = Self.split(text)
        switch (name, argument) {
        case ("bogus-signature", nil): self = .bogusSignature
        case ("clear-up", nil): self = .clearUP
        case ("clear-uv", nil): self = .clearUV
        case ("set-uv", nil): self = .setUV
        case ("counter-zero", nil): self = .counterZero
        case ("counter-freeze", nil): self = .counterFreeze
        case ("deny", nil): self = .deny
        case ("drop", nil): self = .drop
        case ("counter-rewind", let argument?):
            guard let amount = UInt32(argument), amount > 0 else { throw .badArgument(text, "a positive whole number") }
            self = .counterRewind(amount)
        case ("latency", let argument?):
            guard let milliseconds = Int(argument), (0...Self.maximumLatency).contains(milliseconds) else {
                throw .badArgument(text, "milliseconds from 0 to \(Self.maximumLatency)")
            }
            self = .latency(milliseconds: milliseconds)
        case ("status", let argument?):
            guard let status = CTAPStatus(named: argument), status != .success else {
                throw .badArgument(
                    text, "a CTAP status other than CTAP2_OK, by name (CTAP2_ERR_PIN_INVALID) or value (0x31)")
            }
            self = .status(status)
        case (_, _) where Self.takesArgument.contains(name) && argument == nil:
            throw .badArgument(text, "\(name)=VALUE")
        default:
            throw .unknown(text)
        }
    }

    /// The spelling `init(parsing:)` reads back.
    public var name: String {
        switch self {
        case .bogusSignature: "bogus-signature"
        case .clearUP: "clear-up"
        case .clearUV: "clear-uv"
        case .setUV: "set-uv"
        case .counterZero: "counter-zero"
        case .counterFreeze: "counter-freeze"
        case .counterRewind(let amount): "counter-rewind=\(amount)"
        case .latency(let milliseconds): "latency=\(milliseconds)"
        case .deny: "deny"
        case .drop: "drop"
        case .status(let status): "status=\(status.specName)"
        }
    }

    /// Every kind, as `passkeyctl fault set --help` lists them.
    public static let kinds = [
        "bogus-signature", "clear-up", "clear-uv", "set-uv", "counter-zero", "counter-freeze",
        "counter-rewind=N", "latency=MS", "deny", "drop", "status=NAME"
    ]

    /// A minute: past that a platform has long given up (CTAP 2.1 §6: 30 s user action timeout).
    public static let maximumLatency = 60_000

    private static let takesArgument: Set<String> = ["counter-rewind", "latency", "status"]

    private static func split(_ text: String) -> (String, String?) {
        guard let equals = text.firstIndex(of: "=") else { return (text, nil) }
        return (String(text[..<equals]), String(text[text.index(after: equals)...]))
    }
}

/// Why a fault's spelling was not understood; the sentence says what is expected.
public enum FaultSyntaxError: Error, Sendable, Equatable, CustomStringConvertible {
    case unknown(String)
    case badArgument(String, String)

    public var description: String {
        switch self {
        case .unknown(let text):
            "unknown fault \"\(text)\"; one of: \(Fault.kinds.joined(separator: ", "))"
        case .badArgument(let text, let expected):
            "fault \"\(text)\" needs \(expected)"
        }
    }
}

extension CTAPStatus {
    /// A status by its spec name, with or without the `CTAP1_ERR_` / `CTAP2_ERR_` prefix and in any
    /// case, or by its value in hex (`0x31`).
    public init?(named name: String) {
        let upper = name.uppercased()
        if upper.hasPrefix("0X"), let value = UInt8(upper.dropFirst(2), radix: 16) {
            self.init(rawValue: value)
            return
        }
        let all = (0...UInt8.max).compactMap(CTAPStatus.init(rawValue:))
        guard
            let found = all.first(where: { status in
                let spec = status.specName
                return spec == upper || spec.hasSuffix("_ERR_" + upper) || (upper == "OK" && status == .success)
            })
        else { return nil }
        self = found
    }
}
