import SwiftSyntax
import SwiftSyntaxMacros

/// `@CTAPMap` (declared in PasskeydMacros).
public struct CTAPMapMacro: MemberMacro {
    public static func expansion(
        of node: AttributeSyntax, providingMembersOf declaration: some DeclGroupSyntax,
        conformingTo protocols: [TypeSyntax], in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        let keys = MapKey.table(of: declaration)
        let coded = try StoredMember.all(of: declaration, macro: "CTAPMap").filter { member in
            (member.initialValue == nil || !(member.isPrivate || member.isLet))
                && (keys.isEmpty || keys[member.name] != nil)
        }
        let access = declaration.accessPrefix
        let reads = try coded.map { member in
            let read = member.isOptional || member.isDefaulted ? "optional" : "required"
            let fallback = member.isDefaulted ? " ?? .empty" : ""
            return "self.\(member.name) = try map.\(read)(CodingKeys.\(member.name), \(try reader(member)))\(fallback)"
        }
        let pairs = coded.map { "(.\($0.name), \(treeValue($0)))" }
        let written = coded.sorted { (keys[$0.name] ?? .text($0.name)) < (keys[$1.name] ?? .text($1.name)) }
        let always = written.filter { !$0.isOptional && !$0.isDefaulted }.count
        let counted = written.compactMap { member in
            member.isOptional
                ? "(\(member.name) == nil ? 0 : 1)" : member.isDefaulted ? "(\(member.name).isEmpty ? 0 : 1)" : nil
        }
        let writes = written.map(write)
        return [
            """
            \(raw: access)init(cbor: CBORValue) throws(CTAPStatus) {
                let map = try CBORMap(cbor)
                \(raw: reads.joined(separator: "\n"))
                try validate()
            }
            """,
            """
            \(raw: access)var cbor: CBORValue {
                .keyed(CodingKeys.self, [\(raw: pairs.joined(separator: ", "))])
            }
            """,
            """
            \(raw: access)func encode(into writer: inout CBORWriter) {
                writer.mapHeader(count: \(raw: ([String(always)] + counted).joined(separator: " + ")))
                \(raw: writes.joined(separator: "\n"))
            }
            """
        ]
    }

    /// The function that reads one member's value.
    private static func reader(_ member: StoredMember) throws -> String {
        if member.isUnsigned { return "Unsigned.int(cbor:)" }
        return "\(try member.declaredType().trimmedDescription).init(\(member.isArray ? "cborArray" : "cbor"):)"
    }

    /// The member as a `CBORValue`, nil when absent.
    private static func treeValue(_ member: StoredMember) -> String {
        let form = member.isArray ? "cborArray" : "cbor"
        if member.isOptional { return "\(member.name)?.\(form)" }
        if member.isDefaulted { return "\(member.name).isEmpty ? nil : \(member.name).\(form)" }
        return "\(member.name).\(form)"
    }

    /// The statements that write one member's key and value, when present.
    private static func write(_ member: StoredMember) -> String {
        let value = member.isArray ? "writer.value(\(member.name).cborArray)" : "\(member.name).encode(into: &writer)"
        let statements = "writer.key(CodingKeys.\(member.name))\n\(value)"
        if member.isOptional { return "if let \(member.name) {\n\(statements)\n}" }
        if member.isDefaulted { return "if !\(member.name).isEmpty {\n\(statements)\n}" }
        return statements
    }
}

/// A map key as CTAP 2.1 §8's canonical order sorts it: integers (all the command maps use are
/// positive) ascending, before text keys, which sort shorter first, then bytewise.
enum MapKey: Comparable {
    case integer(Int)
    case text(String)

    static func < (lhs: MapKey, rhs: MapKey) -> Bool {
        switch (lhs, rhs) {
        case (.integer(let a), .integer(let b)): a < b
        case (.integer, .text): true
        case (.text, .integer): false
        case (.text(let a), .text(let b)):
            a.utf8.count != b.utf8.count
                ? a.utf8.count < b.utf8.count : Array(a.utf8).lexicographicallyPrecedes(Array(b.utf8))
        }
    }

    /// The keys the struct's own `CodingKeys` enum declares, by member name; empty when it has none
    /// (the synthesized keys are the member names). Integer raw values count up from the last one
    /// written, as Swift assigns them; a `String` enum's keys are its raw values or case names.
    static func table(of declaration: some DeclGroupSyntax) -> [String: MapKey] {
        let codingKeys = declaration.memberBlock.members.lazy.compactMap { $0.decl.as(EnumDeclSyntax.self) }
            .first { $0.name.text == "CodingKeys" }
        guard let codingKeys else { return [:] }
        let isInteger =
            codingKeys.inheritanceClause?.inheritedTypes.contains { $0.type.trimmedDescription == "Int" } ?? false
        var table: [String: MapKey] = [:]
        var next = 0
        for item in codingKeys.memberBlock.members {
            for element in item.decl.as(EnumCaseDeclSyntax.self)?.elements ?? [] {
                let name = element.name.text
                guard isInteger else {
                    let text = element.rawValue?.value.as(StringLiteralExprSyntax.self)?.segments.trimmedDescription
                    table[name] = .text(text ?? name)
                    continue
                }
                if let literal = element.rawValue?.value.as(IntegerLiteralExprSyntax.self)?.literal.text,
                    let value = integer(literal)
                {
                    next = value
                }
                table[name] = .integer(next)
                next += 1
            }
        }
        return table
    }

    /// A decimal or `0x` integer literal's value.
    private static func integer(_ literal: String) -> Int? {
        let digits = literal.filter { $0 != "_" }
        return digits.hasPrefix("0x") ? Int(digits.dropFirst(2), radix: 16) : Int(digits)
    }
}
