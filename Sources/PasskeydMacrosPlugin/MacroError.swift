/// Why a macro cannot expand where it is attached; the compiler shows the sentence there.
enum MacroError: Error, CustomStringConvertible {
    case notAStruct(macro: String)
    case missingType(member: String)
    case privateWithoutValue(member: String)

    var description: String {
        switch self {
        case .notAStruct(let macro): "@\(macro) applies to a struct"
        case .missingType(let member): "'\(member)' needs a type annotation"
        case .privateWithoutValue(let member):
            "'\(member)' is private and has no initial value: the generated initializer cannot set it"
        }
    }
}
