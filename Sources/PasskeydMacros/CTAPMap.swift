/// Derives a CTAP structure's CBOR coding from its one declaration (CTAP 2.1 §6, §8): the
/// stored members and their `CodingKeys` (integer keys when the structure declares them, else
/// the member names, as the synthesized `Codable` has them). It adds
///
/// - `init(cbor:)`: members read in declaration order, a missing required key
///   `CTAP2_ERR_MISSING_PARAMETER`, a present key of the wrong type `CTAP2_ERR_CBOR_UNEXPECTED_TYPE`,
///   unknown keys ignored, then `validate()` — the statuses `CTAPStructure`'s `Codable` path gives;
/// - `cbor`, the structure as a `CBORValue`;
/// - `encode(into:)`, the same bytes written straight to a `CBORWriter` in CTAP 2.1 §8's canonical
///   key order (integers ascending; text keys shorter first, then bytewise).
///
/// Absent members are left out: an optional that is nil, a `@Defaulted` member that is empty. A
/// `[UInt8]` is a byte string, any other array a CBOR array (`CBORArray`), a `@Unsigned` integer
/// must be major type 0; every other member type reads and writes itself (`CBORRepresentable`).
/// A private member with an initial value is not coded.
@attached(member, names: named(init(cbor:)), named(cbor), named(encode(into:)))
public macro CTAPMap() = #externalMacro(module: "PasskeydMacrosPlugin", type: "CTAPMapMacro")
