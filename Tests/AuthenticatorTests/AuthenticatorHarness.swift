import CBOR
import CTAP
import Crypto
import CryptoExtras
import Logging
import MLDSA
import Secp256k1
import Synchronization
import Testing

@testable import Authenticator

/// A monotonic clock the test moves by hand.
final class ManualClock: Sendable {
    private let base = ContinuousClock.now
    private let offset = Mutex<Duration>(.zero)

    func advance(_ duration: Duration) { offset.withLock { $0 += duration } }
    func now() -> ContinuousClock.Instant { base + offset.withLock { $0 } }
}

extension CTAPCaller {
    /// The one platform of tests that do not care who asks.
    static let platform = CTAPCaller(connection: 1, channel: 1)
    /// A second platform on another connection.
    static let otherPlatform = CTAPCaller(connection: 2, channel: 7)
}

extension Authenticator {
    /// A message from `caller` whose keepalives nobody reads.
    func handle(_ message: [UInt8], from caller: CTAPCaller = .platform) async -> [UInt8] {
        await handle(message, from: caller, progress: { _ in })
    }
}

/// An authenticator over an in-memory store, driven through `handle(_:)` exactly as a transport would.
struct Harness {
    let authenticator: Authenticator
    let store: InMemoryCredentialStore
    let presence: ScriptedPresence
    let verifier: ScriptedVerifier?
    let clock = ManualClock()
    /// Who sends this harness's messages unless a call names someone else.
    private(set) var caller = CTAPCaller.platform

    /// `store` reopens a device over an existing store, as a daemon restart does.
    init(
        presence: [PresenceOutcome] = [.approved], verifier: ScriptedVerifier? = nil, capacity: Int = 100,
        store: InMemoryCredentialStore? = nil, logger: Logger? = nil, extensions: ExtensionRegistry? = nil,
        profile: DeviceProfile = .fido21, configure: (inout Authenticator.Configuration) -> Void = { _ in }
    ) {
        self.store = store ?? InMemoryCredentialStore(capacity: capacity)
        self.presence = ScriptedPresence(presence)
        self.verifier = verifier
        var configuration = Authenticator.Configuration(profile: profile)
        let clock = self.clock
        configuration.now = { clock.now() }
        if let extensions { configuration.extensions = extensions }
        configure(&configuration)
        authenticator = Authenticator(
            store: self.store, presence: self.presence, verifier: verifier, configuration: configuration,
            logger: logger ?? Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }))
    }

    /// The same device, spoken to by another platform.
    func speaking(as caller: CTAPCaller) -> Harness {
        var copy = self
        copy.caller = caller
        return copy
    }

    /// Sends one CTAP2 message and splits the reply into status and decoded body.
    func send(_ command: CTAPCommand, _ parameters: CBORValue? = nil, from caller: CTAPCaller? = nil) async throws -> (
        CTAPStatus, CBORValue?
    ) {
        try await sendRaw([command.rawValue] + (parameters?.encoded ?? []), from: caller)
    }

    func sendRaw(_ message: [UInt8], from caller: CTAPCaller? = nil) async throws -> (CTAPStatus, CBORValue?) {
        let reply = await authenticator.handle(message, from: caller ?? self.caller)
        let status = try #require(CTAPStatus(rawValue: reply[0]))
        let body = reply.count > 1 ? try CBORDecoder.decode(Array(reply.dropFirst())) : nil
        if let body { #expect(body.encoded == Array(reply.dropFirst()), "responses are CTAP2 canonical") }
        return (status, body)
    }

    func makeCredential(_ request: MakeCredentialRequest) async throws -> MakeCredentialResponse {
        let (status, body) = try await send(.makeCredential, request.cbor)
        guard status == .success else { throw status }
        return try MakeCredentialResponse(cbor: try #require(body))
    }

    func getAssertion(_ request: GetAssertionRequest, from caller: CTAPCaller? = nil) async throws
        -> GetAssertionResponse
    {
        let (status, body) = try await send(.getAssertion, request.cbor, from: caller)
        guard status == .success else { throw status }
        return try GetAssertionResponse(cbor: try #require(body))
    }

    func getNextAssertion(from caller: CTAPCaller? = nil) async throws -> GetAssertionResponse {
        let (status, body) = try await send(.getNextAssertion, from: caller)
        guard status == .success else { throw status }
        return try GetAssertionResponse(cbor: try #require(body))
    }

    func status(of command: CTAPCommand, _ parameters: CBORValue? = nil, from caller: CTAPCaller? = nil) async throws
        -> CTAPStatus
    {
        try await send(command, parameters, from: caller).0
    }
}

enum Fixture {
    static let clientDataHash = Array(SHA256.hash(data: Array("client data".utf8)))
    static let rp = PublicKeyCredentialRpEntity(id: "example.com", name: "Example")

    static func user(_ n: UInt8, name: String? = nil) -> PublicKeyCredentialUserEntity {
        PublicKeyCredentialUserEntity(id: [n, n, n, n], name: name ?? "user\(n)@example.com", displayName: "User \(n)")
    }

    static func makeCredential(
        rp: PublicKeyCredentialRpEntity = rp, user: PublicKeyCredentialUserEntity = user(1), algs: [Int] = [-7],
        rk: Bool? = true, uv: Bool? = nil, up: Bool? = nil, exclude: [[UInt8]] = [], extensions: ExtensionMap = [:]
    ) -> MakeCredentialRequest {
        MakeCredentialRequest(
            clientDataHash: clientDataHash, rp: rp, user: user,
            pubKeyCredParams: algs.map { PublicKeyCredentialParameters(alg: $0) },
            excludeList: exclude.map { PublicKeyCredentialDescriptor(id: $0) },
            extensions: extensions, options: RequestOptions(rk: rk, up: up, uv: uv))
    }

    static func getAssertion(rpID: String = rp.id, allow: [[UInt8]] = [], up: Bool? = nil, uv: Bool? = nil)
        -> GetAssertionRequest
    {
        GetAssertionRequest(
            rpID: rpID, clientDataHash: clientDataHash, allowList: allow.map { PublicKeyCredentialDescriptor(id: $0) },
            options: RequestOptions(up: up, uv: uv))
    }
}

/// Verifies a signature with swift-crypto from the COSE key alone, independently of the signer.
func verify(signature: [UInt8], over message: [UInt8], with key: COSEKey) throws -> Bool {
    switch key {
    case .p256(let x, let y, _):
        let publicKey = try P256.Signing.PublicKey(rawRepresentation: x + y)
        return publicKey.isValidSignature(try P256.Signing.ECDSASignature(derRepresentation: signature), for: message)
    case .p384(let x, let y):
        return try P384.Signing.PublicKey(rawRepresentation: x + y).isValidSignature(
            try P384.Signing.ECDSASignature(derRepresentation: signature), for: message)
    case .p521(let x, let y):
        return try P521.Signing.PublicKey(rawRepresentation: x + y).isValidSignature(
            try P521.Signing.ECDSASignature(derRepresentation: signature), for: message)
    case .ed25519(let x):
        return try Curve25519.Signing.PublicKey(rawRepresentation: x).isValidSignature(signature, for: message)
    case .rsa(let n, let e, let algorithm):
        let padding: _RSA.Signing.Padding = algorithm == .rs256 ? .insecurePKCS1v1_5 : .PSS
        return try _RSA.Signing.PublicKey(n: n, e: e).isValidSignature(
            _RSA.Signing.RSASignature(rawRepresentation: signature), for: message, padding: padding)
    case .mldsa(let publicKey, let algorithm):
        switch algorithm {
        case .mldsa44:
            return try MLDSAPublicKey(rawRepresentation: publicKey, parameters: .mldsa44).isValidSignature(
                signature, for: message)
        case .mldsa65:
            return try MLDSA65.PublicKey(rawRepresentation: publicKey).isValidSignature(signature, for: message)
        default: return try MLDSA87.PublicKey(rawRepresentation: publicKey).isValidSignature(signature, for: message)
        }
    case .secp256k1(let x, let y):
        return try Secp256k1.isValidSignature(signature, for: message, publicKey: x + y)
    case .arkgP256:
        return false
    }
}

/// Bytes from a hex string the test wrote.
func hex(_ string: String) -> [UInt8] {
    var bytes: [UInt8] = []
    var index = string.startIndex
    while index < string.endIndex {
        let next = string.index(index, offsetBy: 2)
        bytes.append(UInt8(string[index..<next], radix: 16)!)
        index = next
    }
    return bytes
}
