import CTAP
import CTAPHID
import Foundation
import PasskeydLocal
import PasskeydTestSupport
import Synchronization
import Testing

@testable import PasskeyClient

/// A device that does what passkeyd never does, for the transport's own reading: it listens
/// on a fresh socket, serves one connection, answers CTAPHID_INIT, and hands every later
/// request to `respond` with a way to write raw bytes (a reply in pieces, or nothing).
/// It gives up on a client silent for 60 s and closes, so a transport that waits when it
/// should not fails its test with `.disconnected` instead of hanging it. Not sooner: on a
/// loaded machine a test's task can wait seconds for one of the pool's two threads (10 s
/// here made `aSilentDeviceTimesOut` fail in about one loaded `swift test` run of seven).
final class ScriptedDevice: Sendable {
    static let channel: UInt32 = 0x0102_0304
    let folder: TemporaryFolder
    var path: String { folder.appending("ctaphid.sock") }
    private let listener: Int32

    init(respond: @escaping @Sendable (CTAPHIDMessage, _ write: ([UInt8]) -> Void) -> Void) throws {
        folder = try TemporaryFolder("pkc-scripted")
        let listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        self.listener = listener
        guard let address = UnixSocketAddress(path: folder.appending("ctaphid.sock")), address.bind(listener),
            listen(listener, 1) == 0
        else { throw FixtureError("cannot listen at \(folder.path)") }
        Thread.detachNewThread {
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else { return }
            defer { close(connection) }
            var patience = timeval(tv_sec: 60, tv_usec: 0)
            setsockopt(connection, SOL_SOCKET, SO_RCVTIMEO, &patience, socklen_t(MemoryLayout<timeval>.size))
            let write = { (bytes: [UInt8]) in
                _ = bytes.withUnsafeBytes { send(connection, $0.baseAddress!, $0.count, Int32(MSG_NOSIGNAL)) }
            }
            var reassembler = CTAPHIDReassembler()
            var report = [UInt8](repeating: 0, count: CTAPHIDPacket.size)
            while true {
                guard recv(connection, &report, report.count, Int32(MSG_WAITALL)) == report.count,
                    let packet = try? CTAPHIDPacket(report: report)
                else { return }
                guard case .complete(let message) = reassembler.accept(packet) else { continue }
                if message.command == .`init` {
                    let response = CTAPHIDInitResponse(
                        nonce: message.payload, channel: Self.channel, majorVersion: 1, minorVersion: 0,
                        buildVersion: 0, capabilities: [])
                    write(CTAPHIDMessage(channel: message.channel, command: .`init`, payload: response.payload).reports)
                } else {
                    respond(message, write)
                }
            }
        }
    }

    deinit {
        close(listener)
        folder.remove()
    }

    /// A reply's reports as one run of bytes.
    static func reply(_ command: CTAPHIDCommand, _ payload: [UInt8]) -> [UInt8] {
        CTAPHIDMessage(channel: channel, command: command, payload: payload).reports
    }
}

@Suite struct SocketTransportFramingTests {
    @Test func aReplyArrivingInPiecesMidReportIsReassembledAfterItsKeepalive() async throws {
        let answer = [UInt8](repeating: 0xA5, count: 100)  // two reports
        let device = try ScriptedDevice { request, write in
            guard request.command == .cbor else { return }
            write(ScriptedDevice.reply(.keepalive, [KeepaliveStatus.processing.rawValue]))
            Thread.sleep(forTimeInterval: 0.15)  // past the reader's spin and short block: it has suspended
            let bytes = ScriptedDevice.reply(.cbor, answer)
            for piece in [bytes[..<10], bytes[10..<90], bytes[90...]] {
                write(Array(piece))
                Thread.sleep(forTimeInterval: 0.005)
            }
        }
        let transport = UnixSocketTransport(path: device.path)
        let heard = KeepaliveLog()
        let reply = try await transport.send([0x04], keepalive: { status in heard.append(status) })
        #expect(reply == answer)
        #expect(heard.statuses == [.processing])
        await transport.close()
    }

    @Test func aSilentDeviceTimesOut() async throws {
        let device = try ScriptedDevice { _, _ in }
        let transport = UnixSocketTransport(path: device.path, silenceTimeout: .milliseconds(300))
        await #expect(throws: TransportError.timeout) { try await transport.send([0x04], keepalive: { _ in }) }
        await transport.close()
    }

    @Test func cancellingASubscriptionEndsItWhileTheDeviceIsSilent() async throws {
        let device = try ScriptedDevice { request, write in
            // Confirms the subscription, then sends no event.
            if request.command == VendorCommand.watch.command { write(ScriptedDevice.reply(request.command, [0])) }
        }
        let transport = UnixSocketTransport(path: device.path)
        let subscribed = AsyncStream.makeStream(of: Void.self)
        let watching = Task {
            try await transport.subscribe(.watch, payload: [], subscribed: { subscribed.continuation.finish() }) { _ in
            }
        }
        for await _ in subscribed.stream {}
        watching.cancel()
        // A normal return: with the device silent, only the cancellation can have ended it.
        try await watching.value
    }
}

/// Keepalive statuses as the transport reported them, from whichever thread.
final class KeepaliveLog: Sendable {
    private let log = Mutex<[KeepaliveStatus]>([])
    func append(_ status: KeepaliveStatus) { log.withLock { $0.append(status) } }
    var statuses: [KeepaliveStatus] { log.withLock { $0 } }
}
