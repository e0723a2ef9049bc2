/// What the interactive demo's feature list offers: the six scenarios of the SwiftUI seed
/// app, then the courier seed app's account flows.
enum Feature: CaseIterable, Sendable {
    case scenario(Scenario)
    case courierCreateAccount
    case courierSignIn

    static var allCases: [Feature] { Scenario.allCases.map(Feature.scenario) + [.courierCreateAccount, .courierSignIn] }

    var title: String {
        switch self {
        case .scenario(.registration): return "Registration — create a passkey for a username"
        case .scenario(.passkeyOnly): return "Passkey-only sign-in — pick your account"
        case .scenario(.passkeyOrPassword): return "Passkey or password — one picker for both"
        case .scenario(.autofill): return "AutoFill — suggestions in the username field"
        case .scenario(.immediate): return "Immediate — sign in only if a passkey is right here"
        case .scenario(.autofillHybrid): return "AutoFill hybrid — the “Sign in with a passkey” button"
        case .courierCreateAccount: return "Courier: create an account with a passkey"
        case .courierSignIn: return "Courier: sign in"
        }
    }
}
