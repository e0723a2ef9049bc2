import ArgumentParser
import CTAP
import PasskeyClient

/// `passkeyctl bio`: the fingerprints of a `passkeyd --bio` reader, through authenticatorBioEnrollment
/// (CTAP 2.1 §6.7) with a `be` token.
struct BioCommands: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bio",
        abstract: "Enroll, list, rename and remove fingerprints on the simulated reader (passkeyd --bio).",
        discussion: """
            Each sample is a finger on the reader: under `--uv auto` every one reads well, under `--uv prompt` each waits \
            for `passkeyctl approve` (a good sample) or `passkeyctl deny` (a poor one).
            """,
        subcommands: [BioEnrollCommand.self, BioListCommand.self, BioRenameCommand.self, BioRemoveCommand.self])

    /// A template ID as the commands show and take it: lowercase hexadecimal.
    static func hex(_ bytes: [UInt8]) -> String {
        bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }

    static func template(_ text: String) throws(Failure) -> [UInt8] {
        let digits = Array(text.lowercased().utf8)
        guard !digits.isEmpty, digits.count.isMultiple(of: 2) else {
            throw .usage("'\(text)' is not a template ID (hexadecimal, as `passkeyctl bio list` shows it).")
        }
        var bytes: [UInt8] = []
        for pair in stride(from: 0, to: digits.count, by: 2) {
            guard let byte = UInt8(String(decoding: digits[pair..<pair + 2], as: UTF8.self), radix: 16) else {
                throw .usage("'\(text)' is not a template ID (hexadecimal, as `passkeyctl bio list` shows it).")
            }
            bytes.append(byte)
        }
        return bytes
    }

    /// A session holding a `be` token (from the PIN, or from a finger already enrolled).
    static func session(_ global: GlobalOptions) async throws -> (Connection, BioEnrollmentSession) {
        let connection = global.connect()
        let info = try await connection.info()
        guard info.options["bioEnroll"] != nil else {
            throw Failure.refused("This authenticator has no fingerprint reader; start passkeyd with --bio.")
        }
        let token = try await connection.token(
            permissions: .be, info: info, pinFile: global.pinFile, purpose: "Enrolling fingerprints")
        do {
            return (connection, try BioEnrollmentSession(session: connection.session, token: token, info: info))
        } catch {
            throw Failure(error, socket: connection.socket)
        }
    }

    /// Runs `change` on the enrolled fingerprint `template` names. A template ID the reader does
    /// not hold answers `CTAP2_ERR_INVALID_OPTION` (CTAP 2.1 §6.7.7, §6.7.8): the person is told
    /// that nothing was `verb` (renamed, removed).
    static func change(
        _ template: String, _ global: GlobalOptions, nothingWas verb: String,
        _ change: (BioEnrollmentSession, [UInt8]) async throws(CTAP2Error) -> Void
    ) async throws {
        let templateId = try Self.template(template)
        let (connection, bio) = try await session(global)
        do {
            try await connection.run { () async throws(CTAP2Error) in try await change(bio, templateId) }
        } catch Failure.device(.invalidOption) {
            throw Failure.notFound("No fingerprint \(template) is enrolled; nothing was \(verb).")
        }
    }
}

struct BioEnrollCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "enroll", abstract: "Enroll a fingerprint, sample by sample.")
    @OptionGroup var global: GlobalOptions
    @Option(help: "A friendly name for the new fingerprint.")
    var name: String?
    @Option(help: "Give up after this many poor samples in a row.")
    var attempts = 10

    func run() async throws {
        let (connection, bio) = try await BioCommands.session(global)
        var capture = try await connection.run { () async throws(CTAP2Error) in try await bio.enrollBegin() }
        var poor = capture.status == .good ? 0 : 1
        if !global.json { print("Sample read: \(capture.status), \(capture.remainingSamples) more needed.") }
        while capture.remainingSamples > 0 {
            if poor >= attempts {
                try? await connection.run { () async throws(CTAP2Error) in try await bio.cancelCurrentEnrollment() }
                throw Failure.refused(
                    "\(poor) poor samples in a row; the enrollment was cancelled and nothing was kept.")
            }
            let templateId = capture.templateId
            capture = try await connection.run { () async throws(CTAP2Error) in
                try await bio.enrollCaptureNextSample(templateId: templateId)
            }
            poor = capture.status == .good ? 0 : poor + 1
            if !global.json { print("Sample read: \(capture.status), \(capture.remainingSamples) more needed.") }
        }
        let templateId = capture.templateId
        if let name {
            try await connection.run { () async throws(CTAP2Error) in
                try await bio.setFriendlyName(templateId: templateId, name)
            }
        }
        if global.json {
            Output.json(
                .object([
                    (
                        "enrolled",
                        .object([("templateId", .string(BioCommands.hex(templateId))), ("name", .optional(name))])
                    )
                ]))
        } else {
            print("Enrolled fingerprint \(BioCommands.hex(templateId))\(name.map { " (\($0))" } ?? "").")
        }
    }
}

struct BioListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "List the enrolled fingerprints.")
    @OptionGroup var global: GlobalOptions

    func run() async throws {
        let (connection, bio) = try await BioCommands.session(global)
        let enrolled = try await connection.run { () async throws(CTAP2Error) in try await bio.enrollments() }
        if global.json {
            Output.json(
                .object([
                    (
                        "fingerprints",
                        .array(
                            enrolled.map {
                                .object([
                                    ("templateId", .string(BioCommands.hex($0.templateId))),
                                    ("name", .optional($0.templateFriendlyName.flatMap { $0.isEmpty ? nil : $0 }))
                                ])
                            })
                    )
                ]))
        } else if enrolled.isEmpty {
            print("No fingerprints enrolled.")
        } else {
            print(
                Output.table(
                    ["TEMPLATE ID", "NAME"],
                    enrolled.map { [BioCommands.hex($0.templateId), $0.templateFriendlyName ?? ""] }))
        }
    }
}

struct BioRenameCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rename", abstract: "Give an enrolled fingerprint a friendly name.")
    @OptionGroup var global: GlobalOptions
    @Argument(help: "The template ID (hexadecimal).")
    var template: String
    @Option(help: "The new name.")
    var name: String

    func run() async throws {
        try await BioCommands.change(template, global, nothingWas: "renamed") {
            (bio, templateId) async throws(CTAP2Error) in
            try await bio.setFriendlyName(templateId: templateId, name)
        }
        if !global.json { print("Renamed fingerprint \(template) to \(name).") }
    }
}

struct BioRemoveCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "remove", abstract: "Remove an enrolled fingerprint.")
    @OptionGroup var global: GlobalOptions
    @Argument(help: "The template ID (hexadecimal).")
    var template: String

    func run() async throws {
        try await BioCommands.change(template, global, nothingWas: "removed") {
            (bio, templateId) async throws(CTAP2Error) in
            try await bio.removeEnrollment(templateId: templateId)
        }
        if !global.json { print("Removed fingerprint \(template).") }
    }
}
