import CBOR
import CTAP
import Testing

@testable import Authenticator

/// CTAP 2.1 §8: how malformed messages are answered, before any command logic runs.
@Suite struct MessageValidationTests {
    @Test func unknownCommandIsInvalidCommand() async throws {
        #expect(try await Harness().sendRaw([0x55]).0 == .invalidCommand)
        #expect(try await Harness().sendRaw([0x09]).0 == .invalidCommand, "bio enrollment is not offered")
    }

    @Test func emptyMessageIsInvalidLength() async throws {
        #expect(try await Harness().sendRaw([]).0 == .invalidLength)
    }

    @Test func malformedCBORIsInvalidCBOR() async throws {
        let h = Harness()
        #expect(try await h.sendRaw([0x01, 0xA1, 0x01]).0 == .invalidCBOR, "truncated")
        #expect(try await h.sendRaw([0x01, 0xA0, 0x00]).0 == .invalidCBOR, "trailing bytes")
        #expect(try await h.sendRaw([0x02]).0 == .invalidCBOR, "no parameters at all")
        #expect(try await h.sendRaw([0x01, 0xA2, 0x01, 0x01, 0x01, 0x02]).0 == .invalidCBOR, "duplicate key")
    }

    @Test func parametersThatAreNotAMapAreUnexpectedType() async throws {
        #expect(try await Harness().send(.makeCredential, [1, 2]).0 == .cborUnexpectedType)
    }

    @Test func wrongTypeOfAKnownKeyIsUnexpectedType() async throws {
        var map = Fixture.makeCredential().cbor.mapValue!
        map[1] = "not bytes"
        #expect(try await Harness().send(.makeCredential, .map(map)).0 == .cborUnexpectedType)
        var options = Fixture.makeCredential().cbor.mapValue!
        options[7] = ["rk": 1]
        #expect(try await Harness().send(.makeCredential, .map(options)).0 == .cborUnexpectedType)
        var params = Fixture.makeCredential().cbor.mapValue!
        params[4] = [["type": "public-key", "alg": "ES256"]]
        #expect(try await Harness().send(.makeCredential, .map(params)).0 == .cborUnexpectedType)
    }

    @Test(arguments: [1, 2, 3, 4])
    func missingRequiredKeyIsMissingParameter(key: Int) async throws {
        var map = Fixture.makeCredential().cbor.mapValue!
        map[CBORValue(key)] = nil
        #expect(try await Harness().send(.makeCredential, .map(map)).0 == .missingParameter)
    }

    @Test func missingMemberOfAnEntityIsMissingParameter() async throws {
        var map = Fixture.makeCredential().cbor.mapValue!
        map[2] = ["name": "no id"]
        #expect(try await Harness().send(.makeCredential, .map(map)).0 == .missingParameter)
    }

    @Test func unknownKeysAndOptionsAreIgnored() async throws {
        var map = Fixture.makeCredential().cbor.mapValue!
        map[0x7F] = "future parameter"
        map[7] = ["rk": true, "futureOption": true]
        #expect(try await Harness().send(.makeCredential, .map(map)).0 == .success)
    }
}
