import CTAP

/// thirdPartyPayment (CTAP 2.2 §12.9): the mark is kept with the credential (in the record, or
/// in a non-resident credential's ID) and reported when an assertion asks; credential
/// management shows it too (§6.8.4 `thirdPartyPayment`).
struct ThirdPartyPaymentExtension: StoresWithCredential {
    typealias Wire = ThirdPartyPayment

    /// `thirdPartyPayment: true` in the record, 0x40 in a wrapped ID's policy byte (clear in IDs
    /// made before the extension existed).
    static let stored = ExtensionStoredPart.flag("thirdPartyPayment", policyBit: 0x40)

    func getAssertionOutput(_ input: Bool, _ context: ExtensionContext) async throws(CTAPStatus) -> Bool? {
        input ? context.credential[Self.stored] : nil
    }
}

extension CredentialSource {
    /// The record's `thirdPartyPayment` member: true for a credential made for third-party
    /// payments, absent (nil) otherwise.
    public var thirdPartyPayment: Bool? {
        get { self[recorded: ThirdPartyPaymentExtension.stored] }
        set { self[recorded: ThirdPartyPaymentExtension.stored] = newValue }
    }
}
