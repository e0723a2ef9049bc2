import CBOR
import Testing

@testable import CTAP

@Suite("authenticatorCredentialManagement messages")
struct CredentialManagementMessageTests {
    static let descriptor = PublicKeyCredentialDescriptor(id: [1, 2, 3, 4])
    static let user = PublicKeyCredentialUserEntity(id: [7, 7], name: "alice@example.com", displayName: "Alice")

    static let requests: [CredentialManagementRequest] = [
        CredentialManagementRequest(
            subCommand: .getCredsMetadata, pinUvAuthProtocol: 2, pinUvAuthParam: [UInt8](repeating: 1, count: 32)),
        CredentialManagementRequest(subCommand: .enumerateRPsGetNextRP),
        CredentialManagementRequest(
            subCommand: .enumerateCredentialsBegin,
            subCommandParams: CredentialManagementParameters(rpIDHash: [UInt8](repeating: 9, count: 32)),
            pinUvAuthProtocol: 1, pinUvAuthParam: [UInt8](repeating: 2, count: 16)),
        CredentialManagementRequest(
            subCommand: .updateUserInformation,
            subCommandParams: CredentialManagementParameters(credentialID: descriptor, user: user),
            pinUvAuthProtocol: 2, pinUvAuthParam: [UInt8](repeating: 3, count: 32))
    ]

    @Test(arguments: requests)
    func requestsRoundTrip(request: CredentialManagementRequest) throws {
        #expect(try CredentialManagementRequest(parameters: request.cbor.encoded) == request)
    }

    @Test func theAuthenticatedMessageIsTheSubcommandByteThenTheParameters() {
        #expect(CredentialManagementRequest.authenticatedMessage(.getCredsMetadata, nil) == [0x01])
        let params = CredentialManagementParameters(rpIDHash: [0xAA, 0xBB])
        // {1: h'AABB'}
        #expect(
            CredentialManagementRequest.authenticatedMessage(.enumerateCredentialsBegin, params) == [
                0x04, 0xA1, 0x01, 0x42, 0xAA, 0xBB
            ])
    }

    @Test func theAuthenticatedMessageKeepsTheBytesThePlatformSent() throws {
        // {1: 4, 2: {1: h'AABB'}} with the inner key 1 written non-shortest (0x18 0x01).
        let wire: [UInt8] = [0xA2, 0x01, 0x04, 0x02, 0xA1, 0x18, 0x01, 0x42, 0xAA, 0xBB]
        let request = try CredentialManagementRequest(parameters: wire)
        #expect(request.subCommandParams?.rpIDHash == [0xAA, 0xBB])
        #expect(request.authenticatedMessage == [0x04, 0xA1, 0x18, 0x01, 0x42, 0xAA, 0xBB])
    }

    @Test func unknownSubcommandsAndMalformedParametersAreRefused() throws {
        #expect(throws: CTAPStatus.invalidSubcommand) { try CredentialManagementRequest(cbor: [0x01: 0x08]) }
        #expect(throws: CTAPStatus.missingParameter) { try CredentialManagementRequest(cbor: [0x03: 2]) }
        #expect(throws: CTAPStatus.cborUnexpectedType) {
            try CredentialManagementRequest(cbor: [0x01: 0x04, 0x02: [0x01: "not bytes"]])
        }
        #expect(throws: CTAPStatus.invalidCBOR) { try CredentialManagementRequest(parameters: [0xA1, 0x01]) }
    }

    @Test func responsesRoundTrip() throws {
        let responses = [
            CredentialManagementResponse(
                existingResidentCredentialsCount: 3, maxPossibleRemainingResidentCredentialsCount: 97),
            CredentialManagementResponse(
                rp: PublicKeyCredentialRpEntity(id: "example.com", name: "Example"),
                rpIDHash: [UInt8](repeating: 5, count: 32), totalRPs: 2),
            CredentialManagementResponse(
                user: Self.user, credentialID: Self.descriptor,
                publicKey: .ed25519(x: [UInt8](repeating: 6, count: 32)), totalCredentials: 1, credProtect: 2)
        ]
        for response in responses {
            #expect(try CredentialManagementResponse(cbor: CBORDecoder.decode(response.cbor.encoded)) == response)
        }
        // Keys as CTAP 2.1 §6.8 numbers them: getCredsMetadata answers {1: 3, 2: 97}.
        #expect(responses[0].cbor.encoded == [0xA2, 0x01, 0x03, 0x02, 0x18, 0x61])
    }
}

@Suite struct CredentialManagementAuthenticatedBytesTests {
    /// §6.8.1: the MAC covers subCommandParams as sent. A non-shortest outer map header
    /// (B9 00 02) and a non-shortest inner integer must not be "fixed" by re-encoding.
    @Test func theMACCoversTheParametersAsSent() throws {
        let asSent: [UInt8] = [0xA1, 0x18, 0x01, 0x42, 0xAA, 0xBB]  // {1: h'AABB'} with key 1 as 18 01
        let request = try CredentialManagementRequest(parameters: [0xB9, 0x00, 0x02, 0x01, 0x04, 0x02] + asSent)
        #expect(request.subCommand == .enumerateCredentialsBegin)
        #expect(request.authenticatedMessage == [0x04] + asSent)
        #expect(request.authenticatedMessage != [0x04] + (request.subCommandParams?.cbor.encoded ?? []))
    }
}
