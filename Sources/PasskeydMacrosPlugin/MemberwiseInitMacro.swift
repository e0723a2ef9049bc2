import SwiftSyntax
import SwiftSyntaxMacros

/// `@MemberwiseInit` (declared in PasskeydMacros).
public struct MemberwiseInitMacro: MemberMacro {
    public static func expansion(
        of node: AttributeSyntax, providingMembersOf declaration: some DeclGroupSyntax,
        conformingTo protocols: [TypeSyntax], in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        var parameters: [String] = []
        var assignments: [String] = []
        for member in try StoredMember.all(of: declaration, macro: "MemberwiseInit") {
            if member.initialValue != nil && (member.isLet || member.isPrivate) { continue }
            if member.isPrivate { throw MacroError.privateWithoutValue(member: member.name) }
            let declared = try member.declaredType().trimmedDescription
            let type = member.isOptional ? "\(declared)?" : declared
            let escaping = member.isFunction && !member.isOptional ? "@escaping " : ""
            let fallback =
                member.initialValue?.trimmedDescription
                ?? (member.isOptional ? "nil" : member.isDefaulted ? ".empty" : nil)
            parameters.append("\(member.name): \(escaping)\(type)" + (fallback.map { " = \($0)" } ?? ""))
            assignments.append("self.\(member.name) = \(member.name)")
        }
        let initializer: DeclSyntax = """
            \(raw: declaration.accessPrefix)init(\(raw: parameters.joined(separator: ", "))) {
                \(raw: assignments.joined(separator: "\n"))
            }
            """
        return [initializer]
    }
}
