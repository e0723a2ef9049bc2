import CBOR
import CTAP
import Crypto
import Testing

@testable import Authenticator
@testable import PasskeyClient

/// authenticatorLargeBlobs (CTAP 2.1 §6.10) and the largeBlobKey extension (§12.3).
struct LargeBlobsTests {
    /// A serialized array holding one entry of `count` bytes, as a platform builds it.
    static func serialized(entryBytes count: Int) -> [UInt8] {
        SerializedLargeBlobArray(
            array: CBORValue.array([CBORValue.map([.unsigned(1): .byteString([UInt8](repeating: 7, count: count))])])
                .encoded
        ).bytes
    }

    /// Reads `get` bytes at `offset`.
    static func read(_ h: Harness, get: Int, offset: Int) async throws -> (CTAPStatus, [UInt8]?) {
        let (status, body) = try await h.send(.largeBlobs, LargeBlobsRequest(get: get, offset: offset).cbor)
        return (status, try body.map { try LargeBlobsResponse(cbor: $0).config })
    }

    /// Writes one fragment, authenticated with `token` when given.
    static func write(_ h: Harness, _ fragment: [UInt8], offset: Int, length: Int?, token: PinUvAuthToken?) async throws
        -> CTAPStatus
    {
        let message = LargeBlobsRequest.authenticatedMessage(
            offset: offset, fragmentHash: Array(SHA256.hash(data: fragment)))
        let request = LargeBlobsRequest(
            set: fragment, offset: offset, length: length,
            pinUvAuthParam: token?.authenticate(message), pinUvAuthProtocol: token?.protocolVersion)
        return try await h.status(of: .largeBlobs, request.cbor)
    }

    static func stored(_ h: Harness) async throws -> [UInt8] {
        try await h.authenticator.serializedLargeBlobArray()
    }

    @Test func aNewDeviceHoldsTheInitialEmptyArrayAndSaysHowMuchItStores() async throws {
        let h = Harness()
        let (status, config) = try await Self.read(h, get: 1024, offset: 0)
        #expect(status == .success)
        // CTAP 2.1 §6.10.1: 0x80 followed by LEFT(SHA-256(0x80), 16).
        #expect(config == [0x80] + Array(SHA256.hash(data: [0x80]).prefix(16)))
        let info = try await PlatformPIN(h, .two).info()
        #expect(info.options["largeBlobs"] == true)
        #expect(info.maxSerializedLargeBlobArray == 4096)
        #expect(info.extensions.contains("largeBlobKey"))
    }

    @Test func aWriteInFragmentsReplacesTheArrayOnlyWhenComplete() async throws {
        let h = Harness()
        let token = try #require(try await PlatformPIN(h, .two).setPINAndToken(permissions: .lbw))
        let array = Self.serialized(entryBytes: 3000)
        let initial = try await Self.stored(h)
        #expect(
            try await Self.write(h, Array(array[..<1000]), offset: 0, length: array.count, token: token) == .success)
        #expect(try await Self.stored(h) == initial, "nothing changes before the last fragment")
        #expect(try await Self.write(h, Array(array[1000..<2000]), offset: 1000, length: nil, token: token) == .success)
        #expect(try await Self.write(h, Array(array[2000...]), offset: 2000, length: nil, token: token) == .success)
        #expect(try await Self.stored(h) == array)
        // Reads in pieces give it back.
        let (_, head) = try await Self.read(h, get: 2000, offset: 0)
        let (_, tail) = try await Self.read(h, get: 2000, offset: 2000)
        #expect((head ?? []) + (tail ?? []) == array)
        // The array survives a restart over the same store.
        let reopened = Harness(store: h.store)
        #expect(try await Self.read(reopened, get: 4000, offset: 0).1 == array)
    }

    @Test func badWritesAnswerTheirStatusAndChangeNothing() async throws {
        let h = Harness()
        let token = try #require(try await PlatformPIN(h, .one).setPINAndToken(permissions: .lbw))
        let before = try await Self.stored(h)
        var array = Self.serialized(entryBytes: 100)
        // Step 4.9: a wrong hash is CTAP2_ERR_INTEGRITY_FAILURE.
        var corrupt = array
        corrupt[corrupt.count - 1] ^= 0xFF
        #expect(try await Self.write(h, corrupt, offset: 0, length: corrupt.count, token: token) == .integrityFailure)
        // Step 4.2.2: longer than maxSerializedLargeBlobArray.
        let oversized = Self.serialized(entryBytes: 4100)
        #expect(
            try await Self.write(h, Array(oversized[..<100]), offset: 0, length: oversized.count, token: token)
                == .largeBlobStorageFull)
        // Step 4.2.3: shorter than a hash and one byte.
        #expect(try await Self.write(h, [0x80], offset: 0, length: 16, token: token) == .invalidParameter)
        // Step 4.2.1: the first fragment without its length.
        #expect(try await Self.write(h, array, offset: 0, length: nil, token: token) == .invalidParameter)
        // Step 4.4: a fragment that does not continue a write in progress.
        #expect(try await Self.write(h, Array(array[10...]), offset: 10, length: nil, token: token) == .invalidSequence)
        #expect(try await Self.write(h, Array(array[..<10]), offset: 0, length: array.count, token: token) == .success)
        #expect(try await Self.write(h, Array(array[20...]), offset: 20, length: nil, token: token) == .invalidSequence)
        // Step 4.3: a later fragment repeating the length.
        #expect(try await Self.write(h, Array(array[..<10]), offset: 0, length: array.count, token: token) == .success)
        #expect(
            try await Self.write(h, Array(array[10...]), offset: 10, length: array.count, token: token)
                == .invalidParameter)
        // Step 4.6: more than the announced length.
        #expect(try await Self.write(h, Array(array[..<10]), offset: 0, length: array.count, token: token) == .success)
        #expect(
            try await Self.write(h, Array(array[10...]) + [0], offset: 10, length: nil, token: token)
                == .invalidParameter)
        // Step 4.1 and 3.3: fragments and reads larger than maxFragmentLength.
        let fragmentLimit = Authenticator.Configuration().maxMsgSize - 64
        #expect(
            try await Self.write(
                h, [UInt8](repeating: 0, count: fragmentLimit + 1), offset: 0, length: 4096, token: token)
                == .invalidLength)
        #expect(try await Self.read(h, get: fragmentLimit + 1, offset: 0).0 == .invalidLength)
        // Step 3.4: reading past the end; step 1: no offset; step 2: neither or both of get and set.
        #expect(try await Self.read(h, get: 10, offset: before.count + 1).0 == .invalidParameter)
        #expect(try await h.status(of: .largeBlobs, [0x01: 10]) == .invalidParameter)
        #expect(try await h.status(of: .largeBlobs, [0x03: 0]) == .invalidParameter)
        #expect(try await h.status(of: .largeBlobs, [0x01: 10, 0x02: .byteString([1]), 0x03: 0]) == .invalidParameter)
        // Step 3.2: a read carries no pinUvAuth parameters.
        #expect(try await h.status(of: .largeBlobs, [0x01: 10, 0x03: 0, 0x06: 2]) == .invalidParameter)
        #expect(try await Self.stored(h) == before)
        // And a good one still lands afterwards.
        array = Self.serialized(entryBytes: 5)
        #expect(try await Self.write(h, array, offset: 0, length: array.count, token: token) == .success)
        #expect(try await Self.stored(h) == array)
    }

    @Test func aProtectedDeviceWantsATokenWithLbw() async throws {
        let h = Harness()
        let platform = PlatformPIN(h, .two)
        let array = Self.serialized(entryBytes: 10)
        // Without a PIN, anyone may write (§6.10.2 step 4.5 applies to protected devices).
        #expect(try await Self.write(h, array, offset: 0, length: array.count, token: nil) == .success)
        let withoutLbw = try #require(try await platform.setPINAndToken(permissions: .cm))
        let other = Self.serialized(entryBytes: 20)
        #expect(try await Self.write(h, other, offset: 0, length: other.count, token: nil) == .puatRequired)
        #expect(try await Self.write(h, other, offset: 0, length: other.count, token: withoutLbw) == .pinAuthInvalid)
        // A MAC over another offset does not verify.
        let lbw = try #require(try await platform.token(pin: PlatformPIN.testPIN, permissions: .lbw).1)
        let message = LargeBlobsRequest.authenticatedMessage(offset: 1, fragmentHash: Array(SHA256.hash(data: other)))
        let forged = LargeBlobsRequest(
            set: other, offset: 0, length: other.count, pinUvAuthParam: lbw.authenticate(message), pinUvAuthProtocol: 2)
        #expect(try await h.status(of: .largeBlobs, forged.cbor) == .pinAuthInvalid)
        // A pinUvAuthParam without its protocol.
        let unnamed = LargeBlobsRequest(
            set: other, offset: 0, length: other.count, pinUvAuthParam: [UInt8](repeating: 0, count: 32))
        #expect(try await h.status(of: .largeBlobs, unnamed.cbor) == .missingParameter)
        #expect(try await Self.stored(h) == array)
        #expect(try await Self.write(h, other, offset: 0, length: other.count, token: lbw) == .success)
        #expect(try await Self.stored(h) == other)
    }

    @Test func anotherCallerCannotContinueAWrite() async throws {
        let h = Harness()
        let array = Self.serialized(entryBytes: 50)
        #expect(try await Self.write(h, Array(array[..<10]), offset: 0, length: array.count, token: nil) == .success)
        let other = h.speaking(as: .otherPlatform)
        #expect(
            try await Self.write(other, Array(array[10...]), offset: 10, length: nil, token: nil) == .invalidSequence)
    }

    @Test func resetRestoresTheInitialArray() async throws {
        let h = Harness()
        let array = Self.serialized(entryBytes: 10)
        #expect(try await Self.write(h, array, offset: 0, length: array.count, token: nil) == .success)
        #expect(try await h.status(of: .reset) == .success)
        #expect(try await Self.stored(h) == SerializedLargeBlobArray.initial.bytes)
    }

    @Test func discoverableCredentialsGetTheirOwnKeyOnAskingOnly() async throws {
        let h = Harness(presence: Array(repeating: .approved, count: 8))
        let ask: ExtensionMap = [LargeBlobKey.identifier: true]
        let first = try await h.makeCredential(Fixture.makeCredential(user: Fixture.user(1), extensions: ask))
        let key = try #require(first.largeBlobKey)
        #expect(key.count == 32)
        let second = try await h.makeCredential(Fixture.makeCredential(user: Fixture.user(2), extensions: ask))
        #expect(second.largeBlobKey != nil && second.largeBlobKey != key)
        // None without asking, none for a non-discoverable credential, and only `true` is an input.
        #expect(try await h.makeCredential(Fixture.makeCredential(user: Fixture.user(3))).largeBlobKey == nil)
        #expect(
            try await h.makeCredential(Fixture.makeCredential(user: Fixture.user(4), rk: false, extensions: ask))
                .largeBlobKey == nil)
        #expect(
            try await h.status(
                of: .makeCredential,
                Fixture.makeCredential(user: Fixture.user(5), extensions: [LargeBlobKey.identifier: false]).cbor)
                == .invalidOption)
        // getAssertion returns the key when asked, to each account in turn.
        let credentialID = try #require(
            AuthenticatorData(bytes: first.attestation.authenticatorData).attestedCredentialData?.credentialID)
        var request = Fixture.getAssertion(allow: [credentialID])
        request.extensions = ask
        #expect(try await h.getAssertion(request).largeBlobKey == key)
        #expect(try await h.getAssertion(Fixture.getAssertion(allow: [credentialID])).largeBlobKey == nil)
        var discovering = Fixture.getAssertion()
        discovering.extensions = ask
        // Three discoverable credentials, newest first: user 3 (none), user 2, user 1.
        let answers = [
            try await h.getAssertion(discovering), try await h.getNextAssertion(), try await h.getNextAssertion()
        ]
        #expect(answers.map(\.largeBlobKey) == [nil, second.largeBlobKey, key])
    }
}

extension PlatformPIN {
    static let testPIN = "11234"

    /// Sets `testPIN` on a new device and takes a token with `permissions`.
    func setPINAndToken(permissions: PinUvAuthTokenPermissions) async throws -> PinUvAuthToken? {
        try #require(try await setPIN(Self.testPIN) == .success)
        let (status, token) = try await self.token(pin: Self.testPIN, permissions: permissions)
        try #require(status == .success)
        return token
    }
}
