import CBOR

/// An armed fault: what, for how many more matching transactions, and for which relying party.
/// A matching transaction is a makeCredential, getAssertion or getNextAssertion (for `--rp`, one
/// for that RP ID); each fires every armed rule that matches it.
public struct FaultRule: Sendable, Hashable {
    public var fault: Fault
    /// Transactions left; nil while armed until cleared (`--always`).
    public var remaining: Int?
    public var rpID: String?

    public init(fault: Fault, remaining: Int? = 1, rpID: String? = nil) {
        self.fault = fault
        self.remaining = remaining
        self.rpID = rpID
    }

    /// One line for `fault list` and the log.
    public var summary: String {
        let times = remaining.map { $0 == 1 ? "next transaction" : "next \($0) transactions" } ?? "every transaction"
        return "\(fault.name): \(times)" + (rpID.map { " for \($0)" } ?? "")
    }

    public var cbor: CBORValue {
        var map: [CBORValue: CBORValue] = ["fault": .textString(fault.name)]
        if let remaining { map["count"] = CBORValue(remaining) }
        if let rpID { map["rp"] = .textString(rpID) }
        return .map(map)
    }

    /// A rule from the FAULT vendor command (docs/vendor-commands.md); a count below 1 or a
    /// fault not understood is `CTAP1_ERR_INVALID_PARAMETER`.
    public init(cbor: CBORValue) throws(CTAPStatus) {
        let map = try CBORMap(cbor)
        let name = try map.required("fault", CBORRead.text)
        guard let fault = try? Fault(parsing: name) else { throw .invalidParameter }
        self.fault = fault
        remaining = try map.optional("count", CBORRead.int)
        if let remaining, remaining < 1 { throw .invalidParameter }
        rpID = try map.optional("rp", CBORRead.text)
    }
}
