import Testing

@testable import CTAP

/// The numbers of the spec's tables, written out as the tables give them: the enumerations count
/// them up from the first, so a case added or moved in the middle shifts every later number.
@Suite struct SpecNumberTests {
    private func numbers<T: CTAPNumberedValue & CaseIterable>(_: T.Type) -> [UInt8] { T.allCases.map(\.rawValue) }

    @Test func subcommandsAreTheSpecsNumbers() {
        // CTAP 2.1 §6.5.5 (0x08 reserved), §6.7, §6.8.
        #expect(numbers(ClientPINSubcommand.self) == [0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x09])
        #expect(ClientPINSubcommand.getPinToken.rawValue == 0x05)
        #expect(ClientPINSubcommand.getPinUvAuthTokenUsingUvWithPermissions.rawValue == 0x06)
        #expect(numbers(BioEnrollmentSubcommand.self) == Array(0x01...0x07))
        #expect(BioEnrollmentSubcommand.getFingerprintSensorInfo.rawValue == 0x07)
        #expect(numbers(CredentialManagementSubcommand.self) == Array(0x01...0x07))
        #expect(CredentialManagementSubcommand.enumerateCredentialsBegin.rawValue == 0x04)
        #expect(CredentialManagementSubcommand.updateUserInformation.rawValue == 0x07)
    }

    @Test func sampleStatusesAreTheSpecsNumbers() {
        // CTAP 2.1 §6.7.4: 0x00–0x0B, 0x0C reserved, 0x0D–0x0E.
        #expect(numbers(LastEnrollSampleStatus.self) == Array(0x00...0x0B) + [0x0D, 0x0E])
        #expect(LastEnrollSampleStatus.mergeFailure.rawValue == 0x0A)
        #expect(LastEnrollSampleStatus.noUserPresenceTransition.rawValue == 0x0E)
    }

    /// Each table's rule for a number it does not define; a non-integer is always the wrong type.
    @Test func anUnknownNumberIsRefusedByItsTablesRule() throws {
        #expect(throws: CTAPStatus.invalidSubcommand) { try ClientPINSubcommand(cbor: .unsigned(0x08)) }
        #expect(throws: CTAPStatus.invalidSubcommand) { try CredentialManagementSubcommand(cbor: .unsigned(256)) }
        #expect(throws: CTAPStatus.invalidParameter) { try BioModality(cbor: .unsigned(2)) }
        #expect(throws: CTAPStatus.cborUnexpectedType) { try FingerprintKind(cbor: .unsigned(3)) }
        #expect(throws: CTAPStatus.cborUnexpectedType) { try LastEnrollSampleStatus(cbor: .unsigned(0x0C)) }
        #expect(throws: CTAPStatus.cborUnexpectedType) { try BioEnrollmentSubcommand(cbor: "1") }
        #expect(throws: CTAPStatus.cborUnexpectedType) { try BioModality(cbor: .negative(0)) }
        #expect(try FingerprintKind(cbor: .unsigned(2)) == .swipe)
        #expect(LastEnrollSampleStatus.tooShort.cbor == .unsigned(0x09))
    }
}
