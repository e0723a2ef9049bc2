import CBOR
import PasskeydMacros

/// An armed fault: what, for how many more matching transactions, and for which relying party.
/// A matching transaction is a makeCredential, getAssertion or getNextAssertion (for `--rp`, one
/// for that RP ID); each fires every armed rule that matches it.
@MemberwiseInit
public struct FaultRule: Sendable, Hashable {
    public var fault: Fault
    /// Transactions left; nil while armed until cleared (`--always`).
    public var remaining: Int? = 1
    public var rpID: String?

    /// One line for `fault list` and the log.
    public var summary: String {
        let times = remaining.map { $0 == 1 ? "next transaction" : "next \($0) transactions" } ?? "every transaction"
        return "\(fault.name): \(times)" + (rpID.map { " for \($0)" } ?? "")
    }

    /// The rule map's keys (docs/vendor-commands.md), the only place they are written.
    enum Key: String, CodingKey {
        case fault, count, rp
    }

    public var cbor: CBORValue {
        .keyed(
            Key.self,
            [
                (.fault, .textString(fault.name)), (.count, remaining.map { CBORValue($0) }),
                (.rp, rpID.map(CBORValue.textString))
            ])
    }

    /// A rule from the FAULT vendor command (docs/vendor-commands.md); a count below 1 or a
    /// fault not understood is `CTAP1_ERR_INVALID_PARAMETER`.
    public init(cbor: CBORValue) throws(CTAPStatus) {
        let map = try CBORMap(cbor)
        let name = try map.required(Key.fault, CBORRead.text)
        guard let fault = try? Fault(parsing: name) else { throw .invalidParameter }
        self.fault = fault
        remaining = try map.optional(Key.count, CBORRead.int)
        if let remaining, remaining < 1 { throw .invalidParameter }
        rpID = try map.optional(Key.rp, CBORRead.text)
    }
}
