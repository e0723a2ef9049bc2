import CBOR
import FuzzSupport
import LibFuzzerDriver

/// The strict decoder on arbitrary bytes: it must throw a `CBORError` or return a value, never
/// trap, and what it returns must survive the canonical encoder unchanged (CTAP 2.1 §8).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCBORDecoder(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let bytes = FuzzInput(start, count).rest
    let whole = try? CBORDecoder.decode(bytes)
    if let whole {
        let canonical = CBOREncoder.encode(whole)
        require((try? CBORDecoder.decode(canonical)) == whole, "re-encoding changed the value")
        require(canonical.count <= bytes.count, "the canonical form is longer than a form the decoder accepted")
    }
    if let (prefix, length) = try? CBORDecoder.decodePrefix(bytes) {
        require(length <= bytes.count, "decodePrefix claimed more bytes than it was given")
        require((try? CBORDecoder.decode(Array(bytes[..<length]))) == prefix, "decodePrefix disagrees with decode")
        require(whole == nil || (length == bytes.count && whole == prefix), "decodePrefix stopped short of a whole item")
    } else {
        require(whole == nil, "decode accepted what decodePrefix refused")
    }
    let encodings: [CBORValue: [UInt8]]?
    do {
        encodings = try CBORDecoder.mapValueEncodings(bytes)
    } catch {
        require(whole.map { $0.majorType != 5 } ?? true, "mapValueEncodings refused a map decode accepted")
        return 0
    }
    guard let encodings else {
        require(whole.map { $0.majorType != 5 } ?? true, "mapValueEncodings missed a map")
        return 0
    }
    guard case .map(let entries)? = whole else { fatalError("mapValueEncodings accepted what decode refused") }
    require(entries.count == encodings.count, "mapValueEncodings lost or invented keys")
    for (key, raw) in encodings {
        require(entries[key] == (try? CBORDecoder.decode(raw, maxDepth: CBORDecoder.ctapNestingLimit - 1)),
                "a value's raw encoding decodes to something else")
    }
    return 0
}

/// The executable's entry point as SwiftPM links it (Package.swift): libFuzzer's driver.
@_cdecl("FuzzCBORDecoder_main")
public func fuzzCBORDecoderMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    passkeyd_fuzzer_main(argc, argv)
}
