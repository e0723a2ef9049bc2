import CBOR
import CTAP
import FuzzSupport
import LibFuzzerDriver

/// Every CTAP2 message parser, chosen by the input's first byte: a command byte selects that
/// command's request parser (`CTAPCommand.requestType`, exactly as `Authenticator` parses it);
/// the command byte with bit 7 set selects the response the platform parses (a device's answer
/// is untrusted input too). A parser must throw a `CTAPStatus` or return a value, and a value
/// it returns must read back the same from its own encoding.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCTAPRequests(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    var input = FuzzInput(start, count)
    let selector = input.byte()
    parsers[selector]?(input.rest)
    return 0
}

private let parsers: [UInt8: @Sendable ([UInt8]) -> Void] = {
    var parsers: [UInt8: @Sendable ([UInt8]) -> Void] = [
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
    for command in CTAPCommand.allCases {
        parsers[command.rawValue] = requestParser(command.requestType)
        parsers[0x80 | command.rawValue] = responseParser(command.requestType)
    }
    return parsers
}()

/// The request read from the command's parameter bytes, then from its own encoding.
private func requestParser<Request: CTAPCommandRequest>(_: Request.Type) -> @Sendable ([UInt8]) -> Void {
    { bytes in
        guard let parsed = try? Request(parameters: bytes) else { return }
        let again = try? Request(parameters: parsed.commandParameters?.encoded ?? [])
        require(again == parsed, "\(Request.self) changed through its own encoding")
        // A MACed message is the subcommand's byte, then its parameters as received.
        if let parsed = parsed as? CredentialManagementRequest {
            let message = (again as? CredentialManagementRequest)?.authenticatedMessage
            require(message?.first == parsed.subCommand.rawValue, "the MACed message does not start with the subcommand")
        }
    }
}

/// The response body a platform reads after a success status, then read from its own encoding.
private func responseParser<Request: CTAPCommandRequest>(_: Request.Type) -> @Sendable ([UInt8]) -> Void {
    { bytes in
        guard let body = try? CBORDecoder.decode(bytes), let parsed = try? Request.Response(body: body) else { return }
        var writer = CBORWriter(prefix: [], capacity: 256)
        parsed.encode(into: &writer)
        let again = try? Request.Response(body: writer.bytes.isEmpty ? nil : CBORDecoder.decode(writer.bytes))
        require(again == parsed, "\(Request.Response.self) changed through its own encoding")
    }
}

/// The executable's entry point as SwiftPM links it (Package.swift): libFuzzer's driver.
@_cdecl("FuzzCTAPRequests_main")
public func fuzzCTAPRequestsMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    passkeyd_fuzzer_main(argc, argv)
}
