import PasskeydMacrosPlugin
import SwiftSyntax
import SwiftSyntaxMacroExpansion
import SwiftSyntaxMacrosGenericTestSupport
import Testing

/// What `@MemberwiseInit` and `@CTAPMap` write for a declaration, and what they refuse.
@Suite struct MacroExpansionTests {
    private let specs: [String: MacroSpec] = [
        "MemberwiseInit": MacroSpec(type: MemberwiseInitMacro.self),
        "CTAPMap": MacroSpec(type: CTAPMapMacro.self)
    ]

    private func expect(
        _ source: String, expands expected: String, diagnostics: [DiagnosticSpec] = [],
        sourceLocation: Testing.SourceLocation = #_sourceLocation
    ) {
        assertMacroExpansion(
            source, expandedSource: expected, diagnostics: diagnostics, macroSpecs: specs,
            failureHandler: { Issue.record("\($0.message)", sourceLocation: sourceLocation) })
    }

    @Test func memberwiseInitFollowsDeclarationOrderWithTheSynthesizedDefaults() {
        expect(
            """
            @MemberwiseInit
            public struct Entity {
                public var id: [UInt8]
                public var name: String?
                @Defaulted public var list: [Item]
                public var kind = "public-key"
                let fixed = 3
                private var cache = Cache()
                static var shared = 0
                var computed: Int { 1 }
                var action: () -> Void
            }
            """,
            expands: """
                public struct Entity {
                    public var id: [UInt8]
                    public var name: String?
                    @Defaulted public var list: [Item]
                    public var kind = "public-key"
                    let fixed = 3
                    private var cache = Cache()
                    static var shared = 0
                    var computed: Int { 1 }
                    var action: () -> Void

                    public init(id: [UInt8], name: String? = nil, list: [Item] = .empty, kind: String = "public-key", action: @escaping () -> Void) {
                        self.id = id
                        self.name = name
                        self.list = list
                        self.kind = kind
                        self.action = action
                    }
                }
                """)
    }

    @Test func anInternalStructGetsAnInternalInitializer() {
        expect(
            """
            @MemberwiseInit
            struct Pair {
                let a: Int
                var b: Bool?
            }
            """,
            expands: """
                struct Pair {
                    let a: Int
                    var b: Bool?

                    init(a: Int, b: Bool? = nil) {
                        self.a = a
                        self.b = b
                    }
                }
                """)
    }

    @Test func ctapMapReadsInDeclarationOrderAndWritesInCanonicalKeyOrder() {
        expect(
            """
            @CTAPMap
            public struct Request {
                enum CodingKeys: Int, CodingKey {
                    case hash = 0x02
                    case rp = 0x01
                    case list = 0x04, count
                }
                public var hash: [UInt8]
                public var rp: Entity
                @Defaulted public var list: [Item]
                @Unsigned public var count: Int?
                private var received = Received()
            }
            """,
            expands: """
                public struct Request {
                    enum CodingKeys: Int, CodingKey {
                        case hash = 0x02
                        case rp = 0x01
                        case list = 0x04, count
                    }
                    public var hash: [UInt8]
                    public var rp: Entity
                    @Defaulted public var list: [Item]
                    @Unsigned public var count: Int?
                    private var received = Received()

                    public init(cbor: CBORValue) throws(CTAPStatus) {
                        let map = try CBORMap(cbor)
                        self.hash = try map.required(CodingKeys.hash, [UInt8].init(cbor:))
                        self.rp = try map.required(CodingKeys.rp, Entity.init(cbor:))
                        self.list = try map.optional(CodingKeys.list, [Item].init(cborArray:)) ?? .empty
                        self.count = try map.optional(CodingKeys.count, Unsigned.int(cbor:))
                        try validate()
                    }

                    public var cbor: CBORValue {
                        .keyed(CodingKeys.self, [(.hash, hash.cbor), (.rp, rp.cbor), (.list, list.isEmpty ? nil : list.cborArray), (.count, count?.cbor)])
                    }

                    public func encode(into writer: inout CBORWriter) {
                        writer.mapHeader(count: 2 + (list.isEmpty ? 0 : 1) + (count == nil ? 0 : 1))
                        writer.key(CodingKeys.rp)
                        rp.encode(into: &writer)
                        writer.key(CodingKeys.hash)
                        hash.encode(into: &writer)
                        if !list.isEmpty {
                            writer.key(CodingKeys.list)
                            writer.value(list.cborArray)
                        }
                        if let count {
                            writer.key(CodingKeys.count)
                            count.encode(into: &writer)
                        }
                    }
                }
                """)
    }

    /// Text keys (the WebAuthn dictionaries): shorter first, then bytewise (CTAP 2.1 §8).
    @Test func textKeysAreWrittenShorterFirst() {
        expect(
            """
            @CTAPMap
            struct Descriptor {
                var type: String
                var id: [UInt8]
                var transports: [String]?
            }
            """,
            expands: """
                struct Descriptor {
                    var type: String
                    var id: [UInt8]
                    var transports: [String]?

                    init(cbor: CBORValue) throws(CTAPStatus) {
                        let map = try CBORMap(cbor)
                        self.type = try map.required(CodingKeys.type, String.init(cbor:))
                        self.id = try map.required(CodingKeys.id, [UInt8].init(cbor:))
                        self.transports = try map.optional(CodingKeys.transports, [String].init(cborArray:))
                        try validate()
                    }

                    var cbor: CBORValue {
                        .keyed(CodingKeys.self, [(.type, type.cbor), (.id, id.cbor), (.transports, transports?.cborArray)])
                    }

                    func encode(into writer: inout CBORWriter) {
                        writer.mapHeader(count: 2 + (transports == nil ? 0 : 1))
                        writer.key(CodingKeys.id)
                        id.encode(into: &writer)
                        writer.key(CodingKeys.type)
                        type.encode(into: &writer)
                        if let transports {
                            writer.key(CodingKeys.transports)
                            writer.value(transports.cborArray)
                        }
                    }
                }
                """)
    }

    @Test func bothRefuseAnythingButAStruct() {
        for macro in ["MemberwiseInit", "CTAPMap"] {
            expect(
                "@\(macro)\nenum E {\n    case a\n}", expands: "enum E {\n    case a\n}",
                diagnostics: [DiagnosticSpec(message: "@\(macro) applies to a struct", line: 1, column: 1)])
        }
    }

    @Test func aMemberWithoutATypeIsNamed() {
        expect(
            "@MemberwiseInit\nstruct S {\n    var a: Int\n    var b = Box()\n}",
            expands: "struct S {\n    var a: Int\n    var b = Box()\n}",
            diagnostics: [DiagnosticSpec(message: "'b' needs a type annotation", line: 1, column: 1)])
    }

    @Test func aPrivateMemberWithoutAValueCannotBeInitialized() {
        expect(
            "@MemberwiseInit\nstruct S {\n    private var secret: [UInt8]\n}",
            expands: "struct S {\n    private var secret: [UInt8]\n}",
            diagnostics: [
                DiagnosticSpec(
                    message: "'secret' is private and has no initial value: the generated initializer cannot set it",
                    line: 1, column: 1)
            ])
    }
}
