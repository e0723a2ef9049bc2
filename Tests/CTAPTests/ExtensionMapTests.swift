import CBOR
import CTAP
import Testing

/// Extension inputs and outputs travel by identifier and are read only as typed values
/// (CTAP 2.1 §12): the wire form is the spec's, malformed inputs get the spec's statuses.
@Suite struct ExtensionMapTests {
    @Test func typedInputsHaveTheSpecsWireForm() throws {
        var inputs = ExtensionMap()
        inputs.setMakeCredentialInput(CredProtect.self, .userVerificationRequired)
        inputs.setMakeCredentialInput(HMACSecret.self, true)
        #expect(inputs.cbor == ["credProtect": 3, "hmac-secret": true])
        let parsed = try ExtensionMap(cbor: inputs.cbor)
        #expect(try parsed.makeCredentialInput(CredProtect.self) == .userVerificationRequired)
        #expect(try parsed.makeCredentialInput(HMACSecret.self) == true)
    }

    @Test func hmacSecretAssertionInputRoundTripsAndDefaultsToProtocolOne() throws {
        let key = COSEKey.p256(
            x: [UInt8](repeating: 1, count: 32), y: [UInt8](repeating: 2, count: 32), algorithm: .ecdhESHKDF256)
        let input = HMACSecretInput(
            keyAgreement: key, saltEnc: [UInt8](repeating: 3, count: 32), saltAuth: [4], version: .two)
        var inputs = ExtensionMap()
        inputs.setGetAssertionInput(HMACSecret.self, input)
        #expect(try ExtensionMap(cbor: inputs.cbor).getAssertionInput(HMACSecret.self) == input)
        // CTAP 2.0 platforms send no protocol number (CTAP 2.1 §12.5).
        let legacy: CBORValue = [1: key.cbor, 2: .byteString([5]), 3: .byteString([6])]
        #expect(try HMACSecretInput(cbor: legacy).version == .one)
    }

    @Test func malformedInputsGetTheSpecsStatus() {
        #expect(throws: CTAPStatus.invalidParameter) {
            _ = try ExtensionMap(cbor: ["credProtect": 4]).makeCredentialInput(CredProtect.self)
        }
        #expect(throws: CTAPStatus.cborUnexpectedType) {
            _ = try ExtensionMap(cbor: ["credProtect": "high"]).makeCredentialInput(CredProtect.self)
        }
        #expect(throws: CTAPStatus.cborUnexpectedType) {
            _ = try ExtensionMap(cbor: ["hmac-secret": 1]).makeCredentialInput(HMACSecret.self)
        }
        #expect(throws: CTAPStatus.cborUnexpectedType) {
            _ = try ExtensionMap(cbor: ["hmac-secret": [1: 2]]).getAssertionInput(HMACSecret.self)
        }
        let noAuth: CBORValue = [1: COSEKey.ed25519(x: [UInt8](repeating: 1, count: 32)).cbor, 2: .byteString([1])]
        #expect(throws: CTAPStatus.missingParameter) {
            _ = try ExtensionMap(cbor: ["hmac-secret": noAuth]).getAssertionInput(HMACSecret.self)
        }
        #expect(throws: CTAPStatus.cborUnexpectedType) { _ = try ExtensionMap(cbor: [1: true]) }
    }

    @Test func identifiersNobodyAsksForAreIgnored() throws {
        let inputs = try ExtensionMap(cbor: ["credBlob": .byteString([1]), "unknown-extension": [1: 2]])
        #expect(try inputs.makeCredentialInput(CredProtect.self) == nil)
        #expect(try inputs.getAssertionInput(HMACSecret.self) == nil)
        // credProtect has nothing to say in getAssertion: its entry there is ignored, not parsed.
        #expect(try ExtensionMap(cbor: ["credProtect": "anything"]).getAssertionInput(CredProtect.self) == nil)
    }

    @Test func authenticatorDataOutputsReadTyped() throws {
        let authData = AuthenticatorData(
            rpIDHash: [UInt8](repeating: 0, count: 32), flags: [.userPresent], signCount: 1,
            extensions: ["hmac-secret": .byteString([9, 9]), "credProtect": 2])
        let outputs = try AuthenticatorData(bytes: authData.bytes).extensionOutputs()
        #expect(try outputs.getAssertionOutput(HMACSecret.self) == [9, 9])
        #expect(try outputs.makeCredentialOutput(CredProtect.self) == .userVerificationOptionalWithCredentialIDList)
    }
}
