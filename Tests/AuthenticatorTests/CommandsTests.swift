import CBOR
import CTAP
import Testing

@testable import Authenticator

/// Each command code is bound once: to a request type that names that code (or, for a
/// CTAP 2.1-PRE code, its command's), and through it to the authenticator's steps.
@Suite struct CommandsTests {
    static let previews: [CTAPCommand: CTAPCommand] = [
        .bioEnrollmentPreview: .bioEnrollment, .credentialManagementPreview: .credentialManagement
    ]

    @Test(arguments: CTAPCommand.allCases)
    func requestTypeNamesItsCode(command: CTAPCommand) {
        #expect(command.requestType.command == (Self.previews[command] ?? command))
    }

    @Test(arguments: CTAPCommand.allCases)
    func everyCodeIsAnswered(command: CTAPCommand) {
        let binding = Authenticator.commands[Int(command.rawValue)]
        #expect(binding != nil)
        #expect(binding.map { ObjectIdentifier($0) } == ObjectIdentifier(command.requestType))
    }

    @Test func codesWithoutACommandAreUnbound() {
        let unknown = (0...UInt8.max).filter { CTAPCommand(rawValue: $0) == nil }
        #expect(unknown.allSatisfy { Authenticator.commands[Int($0)] == nil })
    }
}
