import ArgumentParser
import CTAP
import CTAPHID
import PasskeyClient

/// `passkeyctl info`: what the authenticator is (getInfo, CTAP 2.1 §6.4), its PIN state and credential counts.
struct InfoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "info",
        abstract:
            "Show versions, AAGUID, options, extensions, algorithms, large-blob room, credential counts and PIN state.",
        discussion:
            "The stored-credential count needs the PIN; it is shown when the PIN comes from --pin-file or PASSKEYCTL_PIN."
    )

    @OptionGroup var global: GlobalOptions

    func run() async throws {
        let connection = global.connect()
        // The profile comes from STATUS: a U2F-only device has no getInfo to ask. A refused or
        // missing daemon is reported as such; only an unreadable reply leaves the profile unknown.
        let reply = try await connection.vendor(.status)
        let profile = (try? DaemonStatus(bytes: reply))?.profile
        let modes = DaemonModes(statusReply: reply)
        if profile == DaemonStatus.u2fOnlyProfile {
            if global.json {
                Output.json(
                    .object([
                        ("profile", .string(DaemonStatus.u2fOnlyProfile)),
                        ("modes", .object(modes.json)),
                        ("generation", .string(Self.generation(["U2F_V2"]))),
                        ("versions", .array([.string("U2F_V2")]))
                    ]))
            } else {
                print(
                    "profile     \(DaemonStatus.u2fOnlyProfile) (CTAP1/U2F only: no CTAP2 getInfo)\ngeneration  \(Self.generation(["U2F_V2"]))\nversions    U2F_V2\nmodes       \(modes.summary)"
                )
            }
            return
        }
        let info = try await connection.info()
        // Counting stored credentials takes a token; ask for one only if the PIN is at hand without a prompt.
        var metadata: CredentialsMetadata?
        if info.options["clientPin"] == true, try PINEntry.given(file: global.pinFile) != nil {
            let management = try await connection.managementSession(pinFile: global.pinFile, info: info)
            metadata = try await connection.run { () async throws(CTAP2Error) in try await management.metadata() }
        }
        // Read after the token, which restores pinRetries when the PIN was right.
        let pin = try await PINState.read(connection, info: info)
        let options = info.options.sorted { $0.key < $1.key }
        if global.json {
            Output.json(
                .object([
                    ("profile", .optional(profile)),
                    ("modes", .object(modes.json)),
                    ("generation", .string(Self.generation(info.versions))),
                    ("versions", .array(info.versions.map(JSON.string))),
                    ("aaguid", .string(Names.aaguid(info.aaguid))),
                    ("firmwareVersion", .optional(info.firmwareVersion)),
                    ("options", .object(options.map { ($0.key, .bool($0.value)) })),
                    ("extensions", .array(info.extensions.map(JSON.string))),
                    (
                        "algorithms",
                        .array(
                            info.algorithms.map {
                                .object([("name", .string(Names.algorithm($0.alg))), ("cose", .int($0.alg))])
                            })
                    ),
                    ("pinUvAuthProtocols", .array(info.pinUvAuthProtocols.map(JSON.int))),
                    ("minPINLength", .optional(info.minPINLength)),
                    ("maxSerializedLargeBlobArray", .optional(info.maxSerializedLargeBlobArray)),
                    ("maxCredBlobLength", .optional(info.maxCredBlobLength)),
                    ("uvModality", .optional(info.uvModality)),
                    (
                        "credentials",
                        .object([
                            ("stored", .optional(metadata?.existing)),
                            (
                                "remaining",
                                .optional(metadata?.maxPossibleRemaining ?? info.remainingDiscoverableCredentials)
                            )
                        ])
                    ),
                    ("pin", pin.json)
                ]))
            return
        }
        let stored = metadata.map { "\($0.existing) stored, " } ?? ""
        let remaining =
            (metadata?.maxPossibleRemaining ?? info.remainingDiscoverableCredentials).map { "room for \($0) more" }
            ?? "room unknown"
        let rows: [[String]] =
            [
                ["profile", profile ?? "unknown"],
                ["modes", modes.summary],
                ["generation", Self.generation(info.versions)],
                ["versions", info.versions.joined(separator: ", ")],
                ["AAGUID", Names.aaguid(info.aaguid)],
                ["firmware", info.firmwareVersion.map(String.init) ?? "unknown"],
                ["options", options.map { "\($0.key)=\($0.value)" }.joined(separator: " ")],
                ["extensions", info.extensions.isEmpty ? "none" : info.extensions.joined(separator: ", ")],
                [
                    "algorithms",
                    info.algorithms.map { "\(Names.algorithm($0.alg)) (\($0.alg))" }.joined(separator: ", ")
                ],
                ["PIN protocols", info.pinUvAuthProtocols.map(String.init).joined(separator: ", ")],
                [
                    "large blobs",
                    info.maxSerializedLargeBlobArray.map { "\($0) bytes (serialized array)" } ?? "not offered"
                ],
                ["credBlob", info.maxCredBlobLength.map { "up to \($0) bytes" } ?? "not offered"],
                [
                    "fingerprints",
                    info.options["bioEnroll"].map {
                        $0 ? "enrolled (passkeyctl bio list)" : "reader present, none enrolled"
                    } ?? "no reader"
                ],
                [
                    "credentials",
                    stored + remaining
                        + (metadata == nil && info.options["clientPin"] == true
                            ? " (give the PIN to count stored ones)" : "")
                ]
            ] + pin.rows(minLength: info.minPINLength)
        print(
            Output.table(["", ""], rows).split(separator: "\n", omittingEmptySubsequences: false).dropFirst().joined(
                separator: "\n"))
    }

    /// The newest generation getInfo `versions` names (CTAP 2.2 §6.4), as hosts tell keys apart;
    /// `FIDO_2_1_PRE` is a key of the CTAP 2.1 review draft (CTAP 2.1 §6.12, §6.13).
    static func generation(_ versions: [String]) -> String {
        let newestFirst = [
            ("FIDO_2_2", "CTAP 2.2"), ("FIDO_2_1", "CTAP 2.1"), ("FIDO_2_1_PRE", "CTAP 2.1-PRE (review draft)"),
            ("FIDO_2_0", "CTAP 2.0"), ("U2F_V2", "CTAP1/U2F")
        ]
        return newestFirst.first { versions.contains($0.0) }?.1 ?? "unknown (\(versions.joined(separator: ", ")))"
    }
}
