import CTAPHID
import FuzzSupport
import LibFuzzerDriver

/// The CTAPHID reassembler fed a report stream the way `CTAPHIDConnection` feeds it: the
/// bytes are cut into 64-byte reports, each read as a packet and accepted in order.
///
/// The first byte sets the scene: bit 0 listens on one channel only (the host's reassembler,
/// on the channel of the first report); bits 1–7, when not zero, abandon the message in
/// reception before every n-th report, as a message timeout does (CTAP 2.1 §11.2.4).
/// Every message that completes must fragment back into packets that reassemble to itself.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCTAPHIDReassembler(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    var input = FuzzInput(start, count)
    let scene = input.byte()
    let stream = input.rest
    let abandonEvery = Int(scene >> 1)
    let reports = stride(from: 0, to: stream.count - CTAPHIDPacket.size + 1, by: CTAPHIDPacket.size).map {
        stream[$0..<$0 + CTAPHIDPacket.size]
    }
    guard let first = reports.first else { return 0 }
    var reassembler = CTAPHIDReassembler(onlyChannel: scene & 1 == 1 ? channel(of: first) : nil)
    for (index, report) in reports.enumerated() {
        if abandonEvery > 0, index % abandonEvery == abandonEvery - 1 {
            let receiving = reassembler.receivingChannel
            require(reassembler.abandon() == receiving, "abandon() named another channel than the one receiving")
            require(reassembler.receivingChannel == nil, "a message survived abandon()")
        }
        guard let packet = try? CTAPHIDPacket(report: report) else { fatalError("a 64-byte report did not parse") }
        require(packet.channel == channel(of: report), "the packet lost its channel")
        switch reassembler.accept(packet) {
        case .incomplete:
            require(reassembler.receivingChannel == packet.channel, "an incomplete message on another channel")
        case .complete(let message):
            require(message.channel == packet.channel, "a message completed on another channel")
            require(message.payload.count <= CTAPHIDPacket.maxMessageLength, "a message above the 7609-byte limit")
            checkFragmentation(message)
        case .ignored:
            break
        case .failed(let channel, _):
            require(channel == packet.channel, "an error owed to another channel")
        }
        if let only = reassembler.onlyChannel, let receiving = reassembler.receivingChannel {
            require(receiving == only, "the host's reassembler took another channel's message")
        }
    }
    return 0
}

private func channel(of report: ArraySlice<UInt8>) -> UInt32 {
    report.prefix(4).reduce(0) { $0 << 8 | UInt32($1) }
}

/// Fragmentation and reassembly are inverses, through the 64-byte reports on the wire.
private func checkFragmentation(_ message: CTAPHIDMessage) {
    var fresh = CTAPHIDReassembler()
    let reports = message.reports
    require(reports.count % CTAPHIDPacket.size == 0, "reports are not whole 64-byte reports")
    var outcome: CTAPHIDReassembler.Outcome = .ignored
    for offset in stride(from: 0, to: reports.count, by: CTAPHIDPacket.size) {
        guard let packet = try? CTAPHIDPacket(report: reports[offset..<offset + CTAPHIDPacket.size]) else {
            fatalError("a fragment did not parse")
        }
        require(outcome == .ignored || outcome == .incomplete, "the message completed before its last packet")
        outcome = fresh.accept(packet)
    }
    require(outcome == .complete(message), "fragments of a message reassembled to something else")
}

/// The executable's entry point as SwiftPM links it (Package.swift): libFuzzer's driver.
@_cdecl("FuzzCTAPHIDReassembler_main")
public func fuzzCTAPHIDReassemblerMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    passkeyd_fuzzer_main(argc, argv)
}
