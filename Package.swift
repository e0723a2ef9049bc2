// swift-tools-version:6.1
import CompilerPluginSupport
import PackageDescription

let crypto: [Target.Dependency] = [
    .product(name: "Crypto", package: "swift-crypto"),
    .product(name: "CryptoExtras", package: "swift-crypto")
]
let logging: Target.Dependency = .product(name: "Logging", package: "swift-log")
let nio: [Target.Dependency] = [
    .product(name: "NIOCore", package: "swift-nio"),
    .product(name: "NIOPosix", package: "swift-nio")
]
let argumentParser: Target.Dependency = .product(name: "ArgumentParser", package: "swift-argument-parser")
// The U2F attestation certificate and the --attestation x5c test PKI (docs/profiles.md says why not a hand-written DER writer).
let certificates: [Target.Dependency] = [
    .product(name: "X509", package: "swift-certificates"),
    .product(name: "SwiftASN1", package: "swift-asn1")
]

let package = Package(
    name: "passkeyd",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "passkeyd", targets: ["passkeyd"]),
        .executable(name: "passkeyctl", targets: ["passkeyctl"]),
        .executable(name: "passkeydemo", targets: ["passkeydemo"]),
        .library(name: "PasskeyClient", targets: ["PasskeyClient"]),
        .library(name: "RelyingParty", targets: ["RelyingParty"])
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.5.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.0"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.0"),
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-certificates.git", from: "1.10.0"),
        .package(url: "https://github.com/apple/swift-asn1.git", from: "1.3.0"),
        // DEFLATE for the platform's large blobs (CTAP 2.1 §6.10.3); docs/client.md says why.
        .package(url: "https://github.com/adam-fowler/compress-nio.git", from: "1.5.0"),
        // `passkeydemo --web`'s HTTP server (docs/passkeydemo.md says why).
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.0"),
        // `make docs`: DocC archives for the PasskeyClient and RelyingParty libraries (build-time plugin only).
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
        // `@CTAPMap` and `@MemberwiseInit`: each CTAP structure's coding and initializer derived from
        // its one declaration (docs/ctap-structures.md says why a macro).
        .package(url: "https://github.com/swiftlang/swift-syntax.git", "602.0.0"..<"604.0.0")
    ],
    targets: [
        // Strict, canonical CTAP2 CBOR. No dependencies.
        .target(name: "CBOR"),
        // The macros that derive code from a declaration (`@CTAPMap`, `@MemberwiseInit`), and the
        // compiler plugin that expands them.
        .macro(
            name: "PasskeydMacrosPlugin",
            dependencies: [
                .product(name: "SwiftSyntax", package: "swift-syntax"),
                .product(name: "SwiftSyntaxMacros", package: "swift-syntax"),
                .product(name: "SwiftCompilerPlugin", package: "swift-syntax")
            ]),
        .target(name: "PasskeydMacros", dependencies: ["PasskeydMacrosPlugin"]),
        // The CTAP2 vocabulary both ends share: messages, statuses, COSE, authData, PIN/UV protocols.
        .target(name: "CTAP", dependencies: ["CBOR", "PasskeydMacros"] + crypto),
        // The transport vocabulary: CTAPHID framing, INIT, keepalive, passkeyd's vendor commands.
        .target(name: "CTAPHID", dependencies: ["CTAP", "CBOR", "PasskeydMacros"]),
        // What passkeyd and its clients share on this machine, not on the wire: where the socket and
        // the keystore live, whom to trust there, the socket's address and peer, secrets handed over
        // in the environment, passkeyd's one version.
        .target(name: "PasskeydLocal"),
        // Concurrency tools both the device and the platform use (`TurnQueue`).
        .target(name: "PasskeydConcurrency"),
        // ES256K over Debian's libsecp256k1 (docs/algorithms.md says why), for the device and the RP.
        .systemLibrary(name: "CSecp256k1", pkgConfig: "libsecp256k1", providers: [.apt(["libsecp256k1-dev"])]),
        .target(name: "Secp256k1", dependencies: ["CSecp256k1", crypto[0]]),
        // ML-DSA-44 (FIPS 204) written here, as no mirrored library offers it (docs/algorithms.md says why).
        .target(name: "MLDSA"),
        // The device's behaviour, as an actor over a pluggable credential store.
        .target(
            name: "Authenticator",
            dependencies: [
                "CTAP", "CBOR", "Secp256k1", "MLDSA", "PasskeydConcurrency", "PasskeydMacros", logging
            ] + crypto + certificates
        ),
        // prctl(2) and setrlimit(2) behind one C call: passkeyd turns its core dumps off.
        .systemLibrary(name: "CLinuxProcess"),
        // The durable, encrypted CredentialStore (SQLite through GRDB).
        .target(
            name: "Keystore",
            dependencies: [
                "Authenticator", "CTAP", "CBOR", "PasskeydMacros", logging,
                .product(name: "GRDB", package: "GRDB.swift")
            ] + crypto),
        // The CTAPHID server on the Unix socket.
        .target(
            name: "PasskeyDaemon",
            dependencies: ["Authenticator", "CTAP", "CTAPHID", "PasskeydLocal", "CBOR", "PasskeydMacros", logging] + nio
        ),
        // The platform role: transports, a typed CTAP2 session, the WebAuthn client.
        .target(
            name: "PasskeyClient",
            dependencies: [
                "WebAuthn", "CTAP", "CTAPHID", "PasskeydLocal", "PasskeydConcurrency", "CBOR", "PasskeydMacros",
                logging,
                crypto[0],
                .product(name: "CompressNIO", package: "compress-nio"),
                .product(name: "NIOCore", package: "swift-nio")
            ]),
        // WebAuthn L3 data types and their JSON forms, shared by the client and the relying party.
        .target(name: "WebAuthn", dependencies: ["CTAP", "PasskeydMacros", crypto[0]]),
        // What a relying party's server does: challenges and verification.
        .target(name: "RelyingParty", dependencies: ["WebAuthn", "CTAP", "CBOR", "Secp256k1", "MLDSA"] + crypto),
        .executableTarget(
            name: "passkeyd",
            dependencies: [
                "PasskeyDaemon", "Keystore", "Authenticator", "CTAP", "PasskeydLocal", argumentParser, logging,
                .target(name: "CLinuxProcess", condition: .when(platforms: [.linux]))
            ]),
        .executableTarget(
            name: "passkeyctl",
            dependencies: ["PasskeyClient", "CTAP", "CTAPHID", "PasskeydLocal", "WebAuthn", argumentParser, logging]),
        // The six classic passkey sign-in scenarios, end to end against a verifying relying party;
        // on a terminal, the seed apps' feature list and the courier app's account flows.
        .executableTarget(
            name: "passkeydemo",
            dependencies: [
                "PasskeyClient", "RelyingParty", "WebAuthn", "Authenticator", "CTAP", "CTAPHID", "PasskeydLocal",
                argumentParser, logging,
                "CBOR", crypto[0], .product(name: "Hummingbird", package: "hummingbird")
            ], resources: [.embedInCode("Web/Assets/demo.js"), .embedInCode("Web/Assets/demo.css")]),
        // `make bench`: throughput and latency over the socket against in-process baselines.
        .executableTarget(
            name: "passkeybench",
            dependencies: [
                "PasskeyClient", "Keystore", "Authenticator", "CTAP", "WebAuthn", argumentParser, logging, crypto[0]
            ]),

        // What every socket test starts: an in-process CTAPHIDServer or the real passkeyd on a
        // temporary socket and data folder, and the built executables. A plain target because a
        // test target cannot depend on another; its sources live with the tests and only test
        // targets depend on it.
        .target(
            name: "PasskeydTestSupport",
            dependencies: ["PasskeyDaemon", "PasskeyClient", "CTAP", logging, crypto[0]],
            path: "Tests/Support"),

        .testTarget(name: "CBORTests", dependencies: ["CBOR"]),
        .testTarget(
            name: "PasskeydMacrosTests",
            dependencies: [
                "PasskeydMacrosPlugin",
                .product(name: "SwiftSyntax", package: "swift-syntax"),
                .product(name: "SwiftSyntaxMacroExpansion", package: "swift-syntax"),
                .product(name: "SwiftSyntaxMacrosGenericTestSupport", package: "swift-syntax")
            ]),
        .testTarget(name: "MLDSATests", dependencies: ["MLDSA"]),
        .testTarget(name: "CTAPTests", dependencies: ["CTAP", "CBOR", crypto[0]]),
        .testTarget(name: "CTAPHIDTests", dependencies: ["CTAPHID", "CTAP", "CBOR"]),
        .testTarget(name: "PasskeydLocalTests", dependencies: ["PasskeydLocal"]),
        .testTarget(
            name: "AuthenticatorTests",
            dependencies: ["Authenticator", "PasskeyClient", "CTAP", "CBOR", "Secp256k1", "MLDSA", logging] + crypto
                + certificates),
        .testTarget(
            name: "KeystoreTests",
            dependencies: [
                "Keystore", "Authenticator", "CBOR", "CTAP", .product(name: "GRDB", package: "GRDB.swift"), crypto[0]
            ]),
        .testTarget(
            name: "PasskeyDaemonTests",
            dependencies: [
                "PasskeydTestSupport", "PasskeyDaemon", "Authenticator", "CTAP", "CTAPHID", "PasskeydLocal", "CBOR"
            ] + nio
                + [logging, .product(name: "NIOEmbedded", package: "swift-nio")]),
        .testTarget(
            name: "PasskeyClientTests",
            dependencies: [
                "PasskeydTestSupport", "PasskeyClient", "PasskeyDaemon", "WebAuthn", "RelyingParty", "Authenticator",
                "CBOR", "CTAP", "CTAPHID", "PasskeydLocal", logging, crypto[0]
            ]),
        // Runs the real passkeyctl against a real passkeyd on a temporary socket and data directory.
        .testTarget(
            name: "PasskeyctlTests",
            dependencies: ["PasskeydTestSupport", "PasskeyClient", "CTAP", "PasskeydLocal", "WebAuthn"]),
        // The passkeyd executable itself: flags, environment, refusals, --detach, signals.
        .testTarget(name: "PasskeydTests", dependencies: ["PasskeydTestSupport", "PasskeyClient", "CTAP"]),
        .testTarget(name: "WebAuthnTests", dependencies: ["WebAuthn", "CTAP", "CBOR"]),
        .testTarget(
            name: "RelyingPartyTests",
            dependencies: ["RelyingParty", "WebAuthn", "CTAP", "CBOR", "Secp256k1", "MLDSA"] + crypto)
    ]
)

// PASSKEYD_MACRO_PLUGIN names a macro plugin another build of this same source already made
// (scripts/test.sh hands the debug build's to the release and fuzz builds; Makefile, RELEASE_BUILD):
// the targets that expand `@CTAPMap` and `@MemberwiseInit` load it as the compiler's plugin
// executable and the `.macro` target goes, so that build folder never builds swift-syntax
// (~6.5 min on two cores in release). The macros expand to the same code whichever build of the
// plugin expands them; the test targets go too (such a build makes products, never tests).
if let plugin = Context.environment["PASSKEYD_MACRO_PLUGIN"], !plugin.isEmpty {
    let macroTarget = "PasskeydMacrosPlugin"
    let load: [SwiftSetting] = [
        .unsafeFlags(["-Xfrontend", "-load-plugin-executable", "-Xfrontend", "\(plugin)#\(macroTarget)"])
    ]
    package.targets.removeAll { $0.name == macroTarget || $0.type == .test }
    for target in package.targets {
        let usesMacros = target.dependencies.contains {
            if case .byNameItem(name: "PasskeydMacros", _) = $0 { return true }
            return false
        }
        if target.name == "PasskeydMacros" { target.dependencies = [] }
        if usesMacros || target.name == "PasskeydMacros" {
            target.swiftSettings = (target.swiftSettings ?? []) + load
        }
    }
}

// `make fuzz` (docs/fuzzing.md): libFuzzer targets, declared only when PASSKEYD_FUZZ=1 so no
// ordinary build sees them. Only this package's own modules are instrumented (coverage and
// AddressSanitizer); dependencies build as in any release build, which keeps the clean build
// CI pays for short. SwiftPM names an executable target's entry point `<Target>_main` and
// links it as `main`; each fuzz target defines that function to start libFuzzer's driver.
if Context.environment["PASSKEYD_FUZZ"] == "1" {
    let sanitize: [SwiftSetting] = [.unsafeFlags(["-sanitize=fuzzer,address"])]
    let instrumented: Set<String> = ["CBOR", "CTAP", "CTAPHID", "Authenticator", "Keystore"]
    for target in package.targets where instrumented.contains(target.name) {
        target.swiftSettings = (target.swiftSettings ?? []) + sanitize
    }
    func fuzzTarget(_ name: String, _ dependencies: [Target.Dependency]) -> Target {
        .executableTarget(
            name: name, dependencies: ["FuzzSupport", "LibFuzzerDriver"] + dependencies, path: "Fuzz/Targets/\(name)",
            swiftSettings: [.unsafeFlags(["-sanitize=fuzzer,address", "-parse-as-library"])],
            linkerSettings: [.unsafeFlags(["-sanitize=fuzzer,address"])])
    }
    package.targets += [
        .target(name: "FuzzSupport", path: "Fuzz/Targets/FuzzSupport", swiftSettings: sanitize),
        .target(name: "LibFuzzerDriver", path: "Fuzz/Targets/LibFuzzerDriver"),
        fuzzTarget("FuzzCBORDecoder", ["CBOR"]),
        fuzzTarget("FuzzCTAPRequests", ["CTAP", "CBOR"]),
        fuzzTarget("FuzzCTAPHIDReassembler", ["CTAPHID"]),
        fuzzTarget("FuzzAuthenticator", ["Authenticator", "CTAP", "CBOR", crypto[0]]),
        fuzzTarget("FuzzKeystore", ["Keystore", "Authenticator", "CTAP"])
    ]
}
