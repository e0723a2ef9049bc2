import CBOR
import CTAP
import Testing

/// CTAP structures declared once as `Codable` keep the statuses CTAP 2.1 §8 assigns to
/// malformed maps, their own validation rules, and their canonical wire form.
@Suite struct CTAPStructureTests {
    let hash = [UInt8](repeating: 0xAB, count: 32)

    func makeCredential(_ edit: (inout [CBORValue: CBORValue]) -> Void) -> CBORValue {
        var map = MakeCredentialRequest(
            clientDataHash: hash, rp: .init(id: "example.com"), user: .init(id: [1]),
            pubKeyCredParams: [.init(alg: -7)]
        ).cbor.mapValue!
        edit(&map)
        return .map(map)
    }

    func getAssertion(_ edit: (inout [CBORValue: CBORValue]) -> Void) -> CBORValue {
        var map = GetAssertionRequest(rpID: "example.com", clientDataHash: hash).cbor.mapValue!
        edit(&map)
        return .map(map)
    }

    /// The device signs authData ‖ clientDataHash: only a SHA-256 (32 bytes) is accepted.
    @Test(arguments: [0, 16, 31, 33, 64])
    func clientDataHashOfAnotherLengthIsInvalidLength(length: Int) {
        let wrong = CBORValue.byteString([UInt8](repeating: 7, count: length))
        #expect(throws: CTAPStatus.invalidLength) {
            _ = try MakeCredentialRequest(cbor: makeCredential { $0[1] = wrong })
        }
        #expect(throws: CTAPStatus.invalidLength) { _ = try GetAssertionRequest(cbor: getAssertion { $0[2] = wrong }) }
    }

    @Test func missingRequiredKeyIsMissingParameterAndWrongTypeIsUnexpectedType() {
        #expect(throws: CTAPStatus.missingParameter) { _ = try GetAssertionRequest(cbor: getAssertion { $0[1] = nil }) }
        #expect(throws: CTAPStatus.cborUnexpectedType) { _ = try GetAssertionRequest(cbor: getAssertion { $0[1] = 5 }) }
        // A null is not absence: CTAP maps never carry one for a member.
        #expect(throws: CTAPStatus.cborUnexpectedType) {
            _ = try GetAssertionRequest(cbor: getAssertion { $0[6] = .null })
        }
        // An element of the wrong type fails the whole list.
        #expect(throws: CTAPStatus.cborUnexpectedType) {
            _ = try GetAssertionRequest(cbor: getAssertion { $0[3] = [5] })
        }
        #expect(throws: CTAPStatus.missingParameter) {
            _ = try MakeCredentialRequest(cbor: makeCredential { $0[3] = ["name": "no id"] })
        }
    }

    @Test func validationInsideANestedStructureKeepsItsStatus() {
        let longHandle = CBORValue.map(["id": .byteString([UInt8](repeating: 1, count: 65))])
        #expect(throws: CTAPStatus.invalidParameter) {
            _ = try MakeCredentialRequest(cbor: makeCredential { $0[3] = longHandle })
        }
        let maxHandle = CBORValue.map(["id": .byteString([UInt8](repeating: 1, count: 64))])
        #expect(throws: Never.self) { _ = try MakeCredentialRequest(cbor: makeCredential { $0[3] = maxHandle }) }
    }

    @Test func protocolNumbersAndRetriesAreUnsigned() {
        #expect(throws: CTAPStatus.cborUnexpectedType) {
            _ = try GetAssertionRequest(cbor: getAssertion { $0[7] = -1 })
        }
        #expect(throws: CTAPStatus.cborUnexpectedType) { _ = try ClientPINRequest(cbor: [1: -2, 2: 1]) }
        #expect(throws: CTAPStatus.cborUnexpectedType) { _ = try ClientPINResponse(cbor: [3: -8]) }
        #expect((try? ClientPINResponse(cbor: [3: 8]))?.pinRetries == 8)
    }

    @Test func anUnknownSubcommandIsInvalidSubcommandWhateverElseIsWrong() {
        #expect(throws: CTAPStatus.invalidSubcommand) { _ = try ClientPINRequest(cbor: [2: 0x08, 3: "not a key"]) }
        #expect(throws: CTAPStatus.cborUnexpectedType) { _ = try ClientPINRequest(cbor: [2: "one"]) }
        #expect(throws: CTAPStatus.invalidSubcommand) { _ = try CredentialManagementRequest(cbor: [1: 0x7F]) }
        #expect(throws: CTAPStatus.missingParameter) { _ = try ClientPINRequest(cbor: [2: 0x03, 1: 2]) }
    }

    @Test func emptyMembersAreLeftOutAndAbsentOnesReadAsEmpty() throws {
        let request = GetAssertionRequest(rpID: "example.com", clientDataHash: hash)
        #expect(request.cbor == [1: "example.com", 2: .byteString(hash)])
        let parsed = try GetAssertionRequest(cbor: request.cbor)
        #expect(parsed.allowList.isEmpty && parsed.extensions.isEmpty && parsed.options.isEmpty)
        let info = GetInfoResponse(versions: ["FIDO_2_1"], aaguid: [UInt8](repeating: 0, count: 16))
        #expect(info.cbor == [1: ["FIDO_2_1"], 3: .byteString([UInt8](repeating: 0, count: 16))])
    }

    @Test func unknownKeysAreIgnored() throws {
        let parsed = try GetAssertionRequest(
            cbor: getAssertion {
                $0[0x20] = "future"
                $0["text"] = 1
            })
        #expect(parsed == GetAssertionRequest(rpID: "example.com", clientDataHash: hash))
        #expect(try RequestOptions(cbor: ["rk": false, "future": 3]) == RequestOptions(rk: false))
    }

    @Test func getInfoOptionsNeedTextKeysAndBooleanValues() {
        let base: [CBORValue: CBORValue] = [1: ["FIDO_2_1"], 3: .byteString([UInt8](repeating: 0, count: 16))]
        var numericKey = base
        numericKey[4] = [1: true]
        #expect(throws: CTAPStatus.cborUnexpectedType) { _ = try GetInfoResponse(cbor: .map(numericKey)) }
        var textValue = base
        textValue[4] = ["rk": "yes"]
        #expect(throws: CTAPStatus.cborUnexpectedType) { _ = try GetInfoResponse(cbor: .map(textValue)) }
    }
}
