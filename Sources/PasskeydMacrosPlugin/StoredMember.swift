import SwiftSyntax

/// One stored property of a struct, as both macros read it.
struct StoredMember {
    let name: String
    /// The declared type (or a literal initial value's), without the outer optional; nil when
    /// neither says, which only a member neither macro sets may be.
    let type: TypeSyntax?
    let isOptional: Bool
    /// Marked `@Defaulted`: absent when empty, empty when absent.
    let isDefaulted: Bool
    /// Marked `@Unsigned`: an integer of CBOR major type 0.
    let isUnsigned: Bool
    let initialValue: ExprSyntax?
    let isLet: Bool
    let isPrivate: Bool

    /// The stored properties of `declaration`, in declaration order.
    static func all(of declaration: some DeclGroupSyntax, macro: String) throws -> [StoredMember] {
        guard declaration.is(StructDeclSyntax.self) else { throw MacroError.notAStruct(macro: macro) }
        var members: [StoredMember] = []
        for item in declaration.memberBlock.members {
            guard let variable = item.decl.as(VariableDeclSyntax.self),
                !variable.modifiers.contains(where: { ["static", "class"].contains($0.name.text) })
            else { continue }
            let attributes = variable.attributes.compactMap {
                $0.as(AttributeSyntax.self)?.attributeName.trimmedDescription
            }
            let isPrivate = variable.modifiers.contains { ["private", "fileprivate"].contains($0.name.text) }
            for binding in variable.bindings {
                guard let pattern = binding.pattern.as(IdentifierPatternSyntax.self), isStored(binding) else {
                    continue
                }
                let annotation = binding.typeAnnotation?.type ?? binding.initializer.flatMap { literalType($0.value) }
                let unwrapped = annotation?.as(OptionalTypeSyntax.self)?.wrappedType
                members.append(
                    StoredMember(
                        name: pattern.identifier.trimmedDescription, type: (unwrapped ?? annotation)?.trimmed,
                        isOptional: unwrapped != nil,
                        isDefaulted: attributes.contains("Defaulted"), isUnsigned: attributes.contains("Unsigned"),
                        initialValue: binding.initializer?.value.trimmed,
                        isLet: variable.bindingSpecifier.tokenKind == .keyword(.let), isPrivate: isPrivate))
            }
        }
        return members
    }

    /// The type Swift gives a literal initial value; nil for any other expression.
    private static func literalType(_ value: ExprSyntax) -> TypeSyntax? {
        if value.is(StringLiteralExprSyntax.self) { return "String" }
        if value.is(IntegerLiteralExprSyntax.self) { return "Int" }
        if value.is(BooleanLiteralExprSyntax.self) { return "Bool" }
        if value.is(FloatLiteralExprSyntax.self) { return "Double" }
        return nil
    }

    /// The type, or the sentence saying it is needed.
    func declaredType() throws -> TypeSyntax {
        guard let type else { throw MacroError.missingType(member: name) }
        return type
    }

    /// A binding without accessors, or with only observers, has storage.
    private static func isStored(_ binding: PatternBindingSyntax) -> Bool {
        guard let block = binding.accessorBlock else { return true }
        guard case .accessors(let accessors) = block.accessors else { return false }
        return accessors.allSatisfy { ["willSet", "didSet"].contains($0.accessorSpecifier.text) }
    }

    /// `[UInt8]`: a byte string, not an array of integers.
    var isBytes: Bool { type?.as(ArrayTypeSyntax.self)?.element.trimmedDescription == "UInt8" }
    /// An array other than bytes: coded element by element.
    var isArray: Bool { type?.is(ArrayTypeSyntax.self) == true && !isBytes }
    /// A closure parameter must escape to be stored.
    var isFunction: Bool {
        type?.is(FunctionTypeSyntax.self) == true
            || type?.as(AttributedTypeSyntax.self)?.baseType.is(FunctionTypeSyntax.self) == true
    }
}

extension DeclGroupSyntax {
    /// `public ` when the type is public (or open), else nothing: the generated members share its access.
    var accessPrefix: String {
        modifiers.contains { ["public", "open"].contains($0.name.text) } ? "public " : ""
    }
}
