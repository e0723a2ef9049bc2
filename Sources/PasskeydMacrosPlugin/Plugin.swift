import SwiftCompilerPlugin
import SwiftSyntaxMacros

@main
struct PasskeydMacrosPlugin: CompilerPlugin {
    let providingMacros: [any Macro.Type] = [MemberwiseInitMacro.self, CTAPMapMacro.self]
}
