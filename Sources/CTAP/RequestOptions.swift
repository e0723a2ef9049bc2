import CBOR
import PasskeydMacros

/// The `options` parameter of authenticatorMakeCredential and authenticatorGetAssertion
/// (CTAP 2.1 §6.1, §6.2): absent keys are nil so each command applies its own defaults.
/// Unknown option keys are ignored; a known key with a non-boolean value is
/// `CTAP2_ERR_CBOR_UNEXPECTED_TYPE`. Coded by `@CTAPMap`: it rides on every request that has options.
@CTAPMap @MemberwiseInit
public struct RequestOptions: CTAPStructure, OmittedWhenEmpty, Sendable, Hashable {
    public var rk: Bool?
    public var up: Bool?
    public var uv: Bool?

    public static var empty: Self { RequestOptions() }
    public var isEmpty: Bool { rk == nil && up == nil && uv == nil }
}
