import CTAP

/// minPinLength (CTAP 2.1 §12.4): the current minimum PIN length, reported at creation only to
/// the RP IDs setMinPINLength named (§6.11.4); anyone else gets no output.
struct MinPinLengthExtension: AuthenticatorExtension {
    typealias Wire = MinPinLength

    func makeCredentialOutput(_ input: Bool, _ context: ExtensionContext) async throws(CTAPStatus) -> Int? {
        input ? context.minPINLengthForRP : nil
    }
}
