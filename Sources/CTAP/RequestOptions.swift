import CBOR

/// The `options` parameter of authenticatorMakeCredential and authenticatorGetAssertion
/// (CTAP 2.1 §6.1, §6.2): absent keys are nil so each command applies its own defaults.
/// Unknown option keys are ignored; a known key with a non-boolean value is
/// `CTAP2_ERR_CBOR_UNEXPECTED_TYPE`.
public struct RequestOptions: CTAPStructure, OmittedWhenEmpty, Sendable, Hashable {
    public var rk: Bool?
    public var up: Bool?
    public var uv: Bool?

    public init(rk: Bool? = nil, up: Bool? = nil, uv: Bool? = nil) {
        self.rk = rk
        self.up = up
        self.uv = uv
    }

    public static var empty: Self { RequestOptions() }
    public var isEmpty: Bool { rk == nil && up == nil && uv == nil }
}

// Coded by hand (it rides on every request that has options), with `CTAPStructure`'s statuses;
// the keys are the member names, through the synthesized `CodingKeys`.
extension RequestOptions {
    public init(cbor: CBORValue) throws(CTAPStatus) {
        let map = try CBORMap(cbor)
        let rk = try map.optional(CodingKeys.rk, Bool.init(cbor:))
        let up = try map.optional(CodingKeys.up, Bool.init(cbor:))
        let uv = try map.optional(CodingKeys.uv, Bool.init(cbor:))
        self.init(rk: rk, up: up, uv: uv)
        try validate()
    }

    public var cbor: CBORValue {
        .keyed(
            CodingKeys.self,
            [(.rk, rk.map(CBORValue.boolean)), (.up, up.map(CBORValue.boolean)), (.uv, uv.map(CBORValue.boolean))])
    }
}
