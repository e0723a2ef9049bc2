/// Adds the memberwise initializer Swift synthesizes only for internal use, with the type's own
/// access level: one parameter per stored property in declaration order, `nil` the default of an
/// optional, `.empty` of a `@Defaulted` member, a `var`'s initial value its own default. A
/// property with an initial value that is `let` or private is left out, as in the synthesized one.
@attached(member, names: named(init))
public macro MemberwiseInit() = #externalMacro(module: "PasskeydMacrosPlugin", type: "MemberwiseInitMacro")
