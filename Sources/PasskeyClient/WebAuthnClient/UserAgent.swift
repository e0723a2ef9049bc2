import CTAP

/// Everything a platform asks a person during a ceremony. A GUI implements it with
/// sheets and pickers; tests and scripts use `ScriptedUserAgent`.
public protocol UserAgent: Sendable {
    /// Shows an account picker; nil means the person dismissed it.
    func chooseCredential(from choices: [CredentialChoice], rpID: String) async -> CredentialChoice?
    /// Shows AutoFill suggestions (a QuickType bar) and waits until one is picked;
    /// nil means they were dismissed. Must return promptly when the task is cancelled.
    func offerSuggestions(_ choices: [CredentialChoice], rpID: String) async -> CredentialChoice?
    /// Asks for the authenticator's PIN; nil means the person cancelled.
    func enterPIN(retriesLeft: Int?) async -> String?
    /// Asks for a new PIN when the authenticator has none and the ceremony needs one.
    func chooseNewPIN(minimumLength: Int) async -> String?
    /// Asks the person to confirm an action, such as saving a new passkey; false declines it.
    func confirm(_ message: String) async -> Bool
    /// Asks the person to approve a ceremony that will use their presence, once the account is
    /// known; false declines it. The default asks `confirm` with the consent's question.
    func approve(_ consent: Consent) async -> Bool
    /// Reports progress, such as "touch your authenticator".
    func show(_ status: KeepaliveStatus) async
}

extension UserAgent {
    public func approve(_ consent: Consent) async -> Bool {
        await confirm(consent.question)
    }
}

/// A user agent that answers from a script and remembers what it was shown.
public actor ScriptedUserAgent: UserAgent {
    /// How the scripted person picks from a list.
    public enum Pick: Sendable {
        /// The first entry.
        case first
        /// The entry at this position; nil when there is none.
        case index(Int)
        /// The first entry whose `label` is this.
        case label(String)
        /// Dismisses the list.
        case dismiss
        /// Never picks: waits until the request is cancelled (a person who walks away).
        case wait
    }

    private var picks: [Pick]
    private var pins: [String?]
    private let newPIN: String?
    private var confirms: Bool
    /// Every confirmation asked, in order.
    public private(set) var confirmations: [String] = []
    /// Every account picker shown, in order.
    public private(set) var pickersShown: [[CredentialChoice]] = []
    /// Every AutoFill suggestion list shown, in order.
    public private(set) var suggestionsShown: [[CredentialChoice]] = []
    /// The retries shown with each PIN prompt, in order.
    public private(set) var pinPrompts: [Int?] = []
    /// Every progress status shown, in order.
    public private(set) var statuses: [KeepaliveStatus] = []

    /// A person who picks as `picks` says (the last pick repeats), types `pins` in turn (then
    /// cancels), chooses `newPIN` when asked for one, and answers every confirmation with `confirms`.
    public init(picks: [Pick] = [.first], pins: [String?] = [], newPIN: String? = nil, confirms: Bool = true) {
        self.confirms = confirms
        self.picks = picks.isEmpty ? [.first] : picks
        self.pins = pins
        self.newPIN = newPIN
    }

    public func chooseCredential(from choices: [CredentialChoice], rpID: String) async -> CredentialChoice? {
        pickersShown.append(choices)
        return await pick(from: choices)
    }

    public func offerSuggestions(_ choices: [CredentialChoice], rpID: String) async -> CredentialChoice? {
        suggestionsShown.append(choices)
        return await pick(from: choices)
    }

    private func pick(from choices: [CredentialChoice]) async -> CredentialChoice? {
        let pick = picks.count > 1 ? picks.removeFirst() : picks[0]
        switch pick {
        case .first: return choices.first
        case .index(let i): return choices.indices.contains(i) ? choices[i] : nil
        case .label(let label): return choices.first { $0.label == label }
        case .dismiss: return nil
        case .wait:
            while !Task.isCancelled { try? await Task.sleep(for: .milliseconds(5)) }
            return nil
        }
    }

    public func enterPIN(retriesLeft: Int?) -> String? {
        pinPrompts.append(retriesLeft)
        return pins.isEmpty ? nil : pins.removeFirst()
    }

    public func chooseNewPIN(minimumLength: Int) -> String? {
        newPIN
    }

    public func confirm(_ message: String) -> Bool {
        confirmations.append(message)
        return confirms
    }

    /// From now on answers every confirmation with `answer` (a person who changes their mind).
    public func answerConfirmations(_ answer: Bool) {
        confirms = answer
    }

    public func show(_ status: KeepaliveStatus) {
        statuses.append(status)
    }
}
