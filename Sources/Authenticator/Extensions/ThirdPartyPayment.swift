import CTAP

/// thirdPartyPayment (CTAP 2.2 §12.9): the mark is kept with the credential (in the record, or
/// in a non-resident credential's ID) and reported when an assertion asks; credential
/// management shows it too (§6.8.4 `thirdPartyPayment`).
struct ThirdPartyPaymentExtension: AuthenticatorExtension {
    typealias Wire = ThirdPartyPayment

    func record(_ input: Bool, on credential: inout CredentialExtensionState, _ creation: CredentialCreation)
        throws(CTAPStatus)
    {
        credential.thirdPartyPayment = input
    }

    func getAssertionOutput(_ input: Bool, _ context: ExtensionContext) async throws(CTAPStatus) -> Bool? {
        input ? context.credential.thirdPartyPayment : nil
    }
}
