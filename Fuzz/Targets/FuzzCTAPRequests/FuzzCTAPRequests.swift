import CBOR
import CTAP
import FuzzSupport
import LibFuzzerDriver

/// Every CTAP2 message parser, chosen by the input's first byte: a command byte selects that
/// command's request parser, exactly as `Authenticator` parses it; the command byte with bit 7
/// set selects the response the platform parses (a device's answer is untrusted input too).
/// A parser must throw a `CTAPStatus` or return a value, and a value it returns must read back
/// the same from its own encoding.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCTAPRequests(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    var input = FuzzInput(start, count)
    let selector = input.byte()
    parsers[selector]?(input.rest)
    return 0
}

private let parsers: [UInt8: @Sendable ([UInt8]) -> Void] = [
    CTAPCommand.makeCredential.rawValue: { roundTrip($0, MakeCredentialRequest.init(cbor:), \.cbor) },
    CTAPCommand.getAssertion.rawValue: { roundTrip($0, GetAssertionRequest.init(cbor:), \.cbor) },
    CTAPCommand.clientPIN.rawValue: { roundTrip($0, ClientPINRequest.init(cbor:), \.cbor) },
    CTAPCommand.credentialManagement.rawValue: credentialManagement,
    CTAPCommand.credentialManagementPreview.rawValue: credentialManagement,
    0x80 | CTAPCommand.makeCredential.rawValue: { roundTrip($0, MakeCredentialResponse.init(cbor:), \.cbor) },
    0x80 | CTAPCommand.getAssertion.rawValue: { roundTrip($0, GetAssertionResponse.init(cbor:), \.cbor) },
    0x80 | CTAPCommand.getInfo.rawValue: { roundTrip($0, GetInfoResponse.init(cbor:), \.cbor) },
    0x80 | CTAPCommand.clientPIN.rawValue: { roundTrip($0, ClientPINResponse.init(cbor:), \.cbor) },
    0x80 | CTAPCommand.credentialManagement.rawValue: { roundTrip($0, CredentialManagementResponse.init(cbor:), \.cbor) },
    // CTAP1/U2F command APDUs (CTAPHID_MSG), read as Authenticator.handleAPDU reads them.
    0xF1: { bytes in
        guard let parsed = try? U2FRequest(apdu: bytes) else { return }
        require((try? U2FRequest(apdu: parsed.apdu.bytes)) == parsed, "U2FRequest changed through its own APDU")
    },
    // Authenticator data is raw bytes with embedded CBOR (CTAP 2.1 §6.1), read by the platform.
    0xF0: { bytes in
        guard let parsed = try? AuthenticatorData(bytes: bytes) else { return }
        require((try? AuthenticatorData(bytes: parsed.bytes)) == parsed, "AuthenticatorData changed through its own encoding")
    },
]

/// The parser `Authenticator` runs on the command's parameter bytes, which keeps the raw
/// `subCommandParams` for the MAC check.
private func credentialManagement(_ bytes: [UInt8]) {
    guard let parsed = try? CredentialManagementRequest(parameters: bytes) else { return }
    let again = try? CredentialManagementRequest(parameters: parsed.cbor.encoded)
    require(again == parsed, "CredentialManagementRequest changed through its own encoding")
    require(again?.authenticatedMessage.first == parsed.subCommand.rawValue, "the MACed message does not start with the subcommand")
}

/// Parameters decode as `Authenticator` decodes them (one CBOR item, CTAP 2.1 §8), then parse.
private func roundTrip<T: Equatable>(
    _ bytes: [UInt8], _ parse: (CBORValue) throws(CTAPStatus) -> T, _ encode: (T) -> CBORValue
) {
    guard let value = try? CBORDecoder.decode(bytes), let parsed = try? parse(value) else { return }
    let again = try? parse(CBORDecoder.decode(encode(parsed).encoded))
    require(again == parsed, "\(T.self) changed through its own encoding")
}

/// The executable's entry point as SwiftPM links it (Package.swift): libFuzzer's driver.
@_cdecl("FuzzCTAPRequests_main")
public func fuzzCTAPRequestsMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    passkeyd_fuzzer_main(argc, argv)
}
