import ArgumentParser
import CTAP
import Foundation
import PasskeyClient

/// `passkeyctl export` / `import`: discoverable credentials out of one passkeyd and into another
/// (docs/testing-your-relying-party.md). Both need the PIN or built-in UV, as credential management does.
struct ExportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write the discoverable credentials out as JSON (Chrome's virtual authenticator's fields) or CXF.",
        discussion:
            "Private keys are written only with --include-private-keys; keep such a file as secret as the keys. CXF leaves out passkeys whose counter is not 0, as that format requires."
    )
    @OptionGroup var global: GlobalOptions
    @Option(help: "Only this RP ID's credentials.") var rp: String?
    @Flag(name: .customLong("include-private-keys"), help: "Include each credential's private key (PKCS#8).")
    var includePrivateKeys = false
    @Option(help: "json (default) or cxf.") var format: String = CredentialFile.Format.json.rawValue
    @Option(
        name: .shortAndLong,
        help:
            "Write to this new file (mode 600; an existing file is replaced only if it is your own with no other links) instead of standard output."
    ) var output: String?

    func validate() throws {
        guard let format = CredentialFile.Format(rawValue: format) else {
            throw ValidationError("--format must be json or cxf.")
        }
        if format == .cxf, !includePrivateKeys {
            throw ValidationError("A cxf file carries private keys: add --include-private-keys.")
        }
    }

    func run() async throws {
        let format = CredentialFile.Format(rawValue: format)!
        let connection = global.connect()
        let transfer = try await TransferSession.open(connection, pinFile: global.pinFile)
        var records: [CredentialRecord]
        do {
            records = try await transfer.export(rpID: rp, includePrivateKeys: includePrivateKeys)
        } catch .status(.operationDenied) where includePrivateKeys {
            throw Failure.refused(
                "This passkeyd does not let private keys out: start it with --allow-private-key-export (or PASSKEYD_ALLOW_PRIVATE_KEY_EXPORT=1) to allow it. Nothing was written."
            )
        } catch .status(.unauthorizedPermission) where includePrivateKeys {
            throw Failure.refused(
                "A PIN is set, and only a token obtained with the PIN lets private keys out. Nothing was written.")
        } catch {
            throw Failure(error, socket: connection.socket)
        }
        // A U2F registration kept by open test controls names no RP (its application parameter
        // alone): no export file can say whose it is, and no import takes it.
        records.removeAll { $0.application != nil }
        if format == .cxf {
            let counting = records.filter { ($0.signCount ?? 0) != 0 }
            if !counting.isEmpty {
                Output.error(
                    "Left out \(counting.count) passkey\(counting.count == 1 ? "" : "s") whose signature counter is not 0: the Credential Exchange Format carries only passkeys without a counter (start passkeyd with --counter zero to make such passkeys)."
                )
            }
            records.removeAll { ($0.signCount ?? 0) != 0 }
        }
        var blobs = SerializedLargeBlobArray.initial
        if records.contains(where: { $0.largeBlobKey != nil }),
            let largeBlobs = try await TransferSession.largeBlobsSession(connection, transfer)
        {
            blobs = try await connection.run { () async throws(CTAP2Error) in try await largeBlobs.read() }
        }
        let entries = records.map {
            CredentialFile.Entry(record: $0, largeBlob: $0.largeBlobKey.flatMap(blobs.blob(for:)))
        }
        let keyless = records.filter { record in
            record.privateKey.map { PrivateKeyEncoding.pkcs8(raw: $0, algorithm: record.algorithm) == nil } ?? false
        }
        if !keyless.isEmpty {
            Output.error(
                "Wrote \(keyless.count) credential\(keyless.count == 1 ? "" : "s") without the private key: passkeyd keeps RSA keys (RS256, PS256) as n and d only and cannot write them as PKCS#8 yet, so they cannot be imported elsewhere."
            )
        }
        let text = CredentialFile.encode(entries, format: format).text() + "\n"
        guard let output else { return print(text, terminator: "") }
        try PrivateFile.write(text, to: output)
        Output.error("Wrote \(records.count) credential\(records.count == 1 ? "" : "s") to \(output).")
    }
}

struct ImportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Store the credentials of an export file (json or cxf) as discoverable credentials.")
    @OptionGroup var global: GlobalOptions
    @Argument(help: "The file `passkeyctl export --include-private-keys` wrote.") var file: String
    @Option(help: "json (default) or cxf.") var format: String = CredentialFile.Format.json.rawValue

    func validate() throws {
        if CredentialFile.Format(rawValue: format) == nil { throw ValidationError("--format must be json or cxf.") }
    }

    func run() async throws {
        guard let data = FileManager.default.contents(atPath: file) else { throw Failure.usage("Cannot read \(file).") }
        var entries = try CredentialFile.decode(data, format: CredentialFile.Format(rawValue: format)!)
        let connection = global.connect()
        let withBlobs = entries.indices.filter { entries[$0].largeBlob != nil }
        let transfer = try await TransferSession.open(
            connection, pinFile: global.pinFile, writingLargeBlobs: !withBlobs.isEmpty)
        try CredentialFile.checkAgainst(
            try await connection.run { () async throws(CTAP2Error) in try await transfer.export() }, entries)
        // Each blob goes in under a fresh largeBlobKey. The new array is checked against the
        // authenticator's capacity before any credential is stored, and written after the last.
        var pendingBlobs: (session: LargeBlobsSession, array: SerializedLargeBlobArray)?
        if !withBlobs.isEmpty {
            guard let largeBlobs = try await TransferSession.largeBlobsSession(connection, transfer) else {
                throw Failure.refused(
                    "The file carries large blobs and this authenticator stores none (no largeBlobs option). Nothing was imported."
                )
            }
            var array = try await connection.run { () async throws(CTAP2Error) in try await largeBlobs.read() }
            for index in withBlobs {
                let key = (0..<LargeBlobKey.keyLength).map { _ in UInt8.random(in: 0...255) }
                entries[index].record.largeBlobKey = key
                array = try await connection.run { () throws(CTAP2Error) in
                    try array.setting(entries[index].largeBlob, for: key)
                }
            }
            guard array.bytes.count <= largeBlobs.capacity else {
                throw Failure.refused(
                    "The large blobs need \(array.bytes.count) bytes of large-blob storage and the authenticator holds \(largeBlobs.capacity). Nothing was imported."
                )
            }
            pendingBlobs = (largeBlobs, array)
        }
        for entry in entries {
            try await connection.run { () async throws(CTAP2Error) in try await transfer.importCredential(entry.record)
            }
        }
        if let pendingBlobs {
            try await connection.run { () async throws(CTAP2Error) in
                try await pendingBlobs.session.write(pendingBlobs.array, token: transfer.token)
            }
        }
        Report.done(
            json: global.json, "Imported \(entries.count) credential\(entries.count == 1 ? "" : "s").",
            [("count", .int(entries.count))])
    }
}

/// `passkeyctl credential flags ID --be on|off --bs on|off` (WebAuthn L3 §6.1.3: BS never without BE).
struct CredentialCommands: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "credential", abstract: "Change a stored credential's properties, for testing a relying party.",
        subcommands: [CredentialFlagsCommand.self])
}

struct CredentialFlagsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "flags", abstract: "Set a credential's backup eligibility (BE), backup state (BS) or counter.",
        discussion:
            "base64url IDs may begin with '-': put the ID after `--` (passkeyctl credential flags --be on -- -AbC).")
    @OptionGroup var global: GlobalOptions
    @Argument(help: "The credential's base64url ID or a unique prefix of it.") var id: String
    @Option(help: "Backup eligible: on or off.") var be: Switch?
    @Option(help: "Backed up: on or off (on needs BE).") var bs: Switch?
    @Option(name: .customLong("sign-count"), help: "The last signature count used: the next sign-in reports one more.")
    var signCount: UInt32?

    enum Switch: String, ExpressibleByArgument {
        case on, off
        var value: Bool { self == .on }
    }

    func validate() throws {
        if be == nil, bs == nil, signCount == nil { throw ValidationError("Give --be, --bs, --sign-count or more.") }
    }

    func run() async throws {
        let connection = global.connect()
        let management = try await connection.managementSession(pinFile: global.pinFile)
        let entry = try await CredentialCatalog.load(management, connection: connection).resolve(id)
        let transfer = CredentialTransferSession(session: management.session, token: management.token)
        do {
            try await transfer.setBackupFlags(
                credentialID: entry.credential.credentialID, eligible: be?.value, backedUp: bs?.value,
                signCount: signCount.map(Int.init))
        } catch .status(.invalidParameter) {
            throw Failure.refused(
                "A credential cannot be backed up without being backup eligible (WebAuthn L3 §6.1): add --be on.")
        } catch {
            throw Failure(error, socket: connection.socket)
        }
        Report.done(json: global.json, signCount == nil ? "Backup flags of \(entry.id) set." : "\(entry.id) updated.")
    }
}

/// The credential transfer session over a token with the `cm` permission.
enum TransferSession {
    static func open(_ connection: Connection, pinFile: String?, writingLargeBlobs: Bool = false) async throws(Failure)
        -> CredentialTransferSession
    {
        let management = try await connection.managementSession(
            pinFile: pinFile, permissions: writingLargeBlobs ? [.cm, .lbw] : .cm)
        return CredentialTransferSession(session: management.session, token: management.token)
    }

    /// authenticatorLargeBlobs on the transfer's connection; nil when the authenticator keeps no large blobs.
    static func largeBlobsSession(_ connection: Connection, _ transfer: CredentialTransferSession) async throws(Failure)
        -> LargeBlobsSession?
    {
        LargeBlobsSession(session: transfer.session, info: try await connection.info())
    }
}
