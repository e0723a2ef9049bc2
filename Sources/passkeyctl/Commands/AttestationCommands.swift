import ArgumentParser
import CTAP
import Foundation
import PasskeyClient

/// `passkeyctl attestation-ca`: the keystore's test attestation root, PEM, for an RP's trust store.
struct AttestationCACommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "attestation-ca",
        abstract: "Print the test root CA that `passkeyd --attestation x5c` attestations chain to (PEM).")
    @OptionGroup var global: GlobalOptions

    func run() async throws {
        print(Self.pem(try await global.connect().attestationRoot()), terminator: "")
    }

    static func pem(_ der: [UInt8]) -> String {
        let body = Data(der).base64EncodedString()
        let lines = stride(from: 0, to: body.count, by: 64).map { start -> String in
            let from = body.index(body.startIndex, offsetBy: start)
            return String(body[from..<(body.index(from, offsetBy: 64, limitedBy: body.endIndex) ?? body.endIndex)])
        }
        return "-----BEGIN CERTIFICATE-----\n" + lines.joined(separator: "\n") + "\n-----END CERTIFICATE-----\n"
    }
}

/// `passkeyctl metadata`: a FIDO Metadata Statement (FIDO Metadata Statement 3.0) for passkeyd's
/// AAGUID and this keystore's test root, so an RP can test its metadata path.
struct MetadataCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "metadata",
        abstract: "Print a FIDO Metadata Statement (JSON) for passkeyd and this keystore's test attestation root.")
    @OptionGroup var global: GlobalOptions

    func run() async throws {
        let connection = global.connect()
        let info = try await connection.info()
        Output.json(Self.statement(info: info, root: try await connection.attestationRoot()))
    }

    /// Metadata Statement 3.0 §4: the members an RP's metadata path reads; getInfo as the device answers it.
    static func statement(info: GetInfoResponse, root: [UInt8]) -> JSON {
        let algorithms = info.algorithms.compactMap { algorithmName[$0.alg] }
        var verification: [JSON] = [.array([.object([("userVerificationMethod", .string("presence_internal"))])])]
        if info.options["clientPin"] != nil {
            verification.append(.array([.object([("userVerificationMethod", .string("passcode_external"))])]))
        }
        if info.options["uv"] != nil {
            verification.append(.array([.object([("userVerificationMethod", .string("fingerprint_internal"))])]))
        }
        let upv: [JSON] = info.versions.compactMap { version in
            switch version {
            case "FIDO_2_0": .object([("major", .int(1)), ("minor", .int(0))])
            case "FIDO_2_1": .object([("major", .int(1)), ("minor", .int(1))])
            default: nil
            }
        }
        var getInfo: [(String, JSON)] = [
            ("versions", .array(info.versions.map(JSON.string))),
            ("extensions", .array(info.extensions.map(JSON.string))),
            ("aaguid", .string(info.aaguid.map { String(format: "%02x", $0) }.joined())),
            ("options", .object(info.options.sorted { $0.key < $1.key }.map { ($0.key, .bool($0.value)) })),
            ("pinUvAuthProtocols", .array(info.pinUvAuthProtocols.map(JSON.int))),
            ("algorithms", .array(info.algorithms.map { .object([("type", .string($0.type)), ("alg", .int($0.alg))]) }))
        ]
        if let size = info.maxMsgSize { getInfo.append(("maxMsgSize", .int(size))) }
        if let version = info.firmwareVersion { getInfo.append(("firmwareVersion", .int(version))) }
        return .object([
            ("legalHeader", .string("A test statement made by passkeyd for its own keystore; not FIDO certified.")),
            ("aaguid", .string(Names.aaguid(info.aaguid))),
            ("description", .string("passkeyd software FIDO2 authenticator (test attestation)")),
            ("authenticatorVersion", .int(info.firmwareVersion ?? 0)),
            ("protocolFamily", .string("fido2")),
            ("schema", .int(3)),
            ("upv", .array(upv)),
            ("authenticationAlgorithms", .array(algorithms.map(JSON.string))),
            ("publicKeyAlgAndEncodings", .array([.string("cose")])),
            ("attestationTypes", .array([.string("basic_full")])),
            ("userVerificationDetails", .array(verification)),
            ("keyProtection", .array([.string("software")])),
            ("matcherProtection", .array([.string("software")])),
            ("cryptoStrength", .int(128)),
            ("attachmentHint", .array([.string("external"), .string("wired")])),
            ("tcDisplay", .array([])),
            ("attestationRootCertificates", .array([.string(Data(root).base64EncodedString())])),
            ("authenticatorGetInfo", .object(getInfo))
        ])
    }

    /// FIDO Registry of Predefined Values §3.6.1, for the COSE algorithms passkeyd offers.
    static let algorithmName: [Int: String] = [
        -7: "secp256r1_ecdsa_sha256_raw", -8: "ed25519_eddsa_sha512_raw", -35: "secp384r1_ecdsa_sha384_raw",
        -36: "secp521r1_ecdsa_sha512_raw", -257: "rsassa_pkcsv15_sha256_raw", -37: "rsassa_pss_sha256_raw"
    ]
}
