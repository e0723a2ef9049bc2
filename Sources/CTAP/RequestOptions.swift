import CBOR

/// The `options` parameter of authenticatorMakeCredential and authenticatorGetAssertion
/// (CTAP 2.1 §6.1, §6.2): absent keys are nil so each command applies its own defaults.
/// Unknown option keys are ignored; a known key with a non-boolean value is
/// `CTAP2_ERR_CBOR_UNEXPECTED_TYPE`.
public struct RequestOptions: Sendable, Hashable {
    public var rk: Bool?
    public var up: Bool?
    public var uv: Bool?

    public init(rk: Bool? = nil, up: Bool? = nil, uv: Bool? = nil) {
        self.rk = rk
        self.up = up
        self.uv = uv
    }

    public var isEmpty: Bool { rk == nil && up == nil && uv == nil }

    public var cbor: CBORValue {
        var m: [CBORValue: CBORValue] = [:]
        if let rk { m["rk"] = .boolean(rk) }
        if let up { m["up"] = .boolean(up) }
        if let uv { m["uv"] = .boolean(uv) }
        return .map(m)
    }

    public init(cbor: CBORValue) throws(CTAPStatus) {
        let map = try CBORMap(cbor)
        rk = try map.optional("rk", CBORRead.bool)
        up = try map.optional("up", CBORRead.bool)
        uv = try map.optional("uv", CBORRead.bool)
    }
}
