import CBOR
import CTAP
import CTAPHID
import Foundation
import Testing

/// The STATUS vendor reply, encoded by the daemon and read by passkeyctl through one type.
@Suite struct DaemonStatusTests {
    @Test func roundTripsThroughItsBytes() throws {
        let status = DaemonStatus(
            version: "0.1.0", pid: 4242, socket: "/run/user/1000/passkeyd/ctaphid.sock",
            startedAt: Date(timeIntervalSince1970: 1_790_000_000), pending: "presence")
        #expect(try DaemonStatus(bytes: status.cbor.encoded) == status)
        let prompting = DaemonStatus(
            version: "0.1.0", pid: 1, socket: "/s", startedAt: Date(timeIntervalSince1970: 0),
            pending: "uv", promptID: 1 << 40, rpID: "example.com")
        #expect(try DaemonStatus(bytes: prompting.cbor.encoded) == prompting)
        let profiled = DaemonStatus(
            version: "0.1.0", pid: 1, socket: "/s", startedAt: Date(timeIntervalSince1970: 0),
            pending: "none", profile: "fido2.0")
        #expect(try DaemonStatus(bytes: profiled.cbor.encoded).profile == "fido2.0")
        #expect(try DaemonStatus(bytes: status.cbor.encoded).profile == nil, "older daemons say nothing")
    }

    @Test func anAbsentPendingMeansNoneAndMissingFieldsAreRefused() throws {
        var map = DaemonStatus(
            version: "0.1.0", pid: 1, socket: "/s", startedAt: Date(timeIntervalSince1970: 0), pending: "uv"
        ).cbor.mapValue!
        map["pending"] = nil
        #expect(try DaemonStatus(cbor: .map(map)).pending == "none")
        map["pid"] = nil
        #expect(throws: CTAPStatus.missingParameter) { try DaemonStatus(cbor: .map(map)) }
        #expect(throws: CTAPStatus.invalidCBOR) { try DaemonStatus(bytes: [0xA1]) }
    }
}
