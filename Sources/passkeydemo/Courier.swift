import CTAP
import Foundation
import PasskeyClient
import WebAuthn

/// The courier seed app's account flows on the terminal: create an account with a passkey,
/// sign in, restore the session at start, sign out; and what it says when things go wrong.
actor Courier {
    /// The app's fixed sentences.
    enum Sentence {
        static let unreachable = "Unable to connect. Please check your internet connection and try again."
        static let notRecognized = "Passkey not recognized. Please try again or create a new account."
        static let support =
            "Still not working? Wait a few minutes and try again, or contact support at support@courier.passkeyd.test."
        static let offline = "You are offline: your account opens read-only until the connection is back."
    }

    let server: CourierServer
    let sessionFile: CourierSessionFile
    let log: CourierLog
    let console: Console
    /// A WebAuthn client for the courier's origin with the person as its user agent.
    let client: @Sendable (String) throws -> (WebAuthnClient, TerminalUserAgent)
    /// Failures in a row (not cancellations); the third brings the support sentence.
    private var failures = 0

    init(
        server: CourierServer, sessionFile: CourierSessionFile, log: CourierLog, console: Console,
        client: @escaping @Sendable (String) throws -> (WebAuthnClient, TerminalUserAgent)
    ) {
        self.server = server
        self.sessionFile = sessionFile
        self.log = log
        self.console = console
        self.client = client
    }

    /// At start: a saved session the server still knows opens the account; with the server
    /// unreachable it opens read-only. Returns once the person leaves the account screen.
    func restore() async {
        guard let saved = sessionFile.load() else { return }
        do {
            guard let username = try await server.resume(saved.token), username == saved.username else {
                log.record("session-expired", ["user": saved.username])
                sessionFile.clear()
                console.screen(["Courier", "", "Your session has ended. Sign in again.", "", "Enter to continue"])
                _ = await console.confirm()
                return
            }
            log.record("session-restored", ["user": username])
            await home(saved, heading: "Welcome back, \(username) (session restored, checked by the server)")
        } catch {
            log.record("session-restore-offline", ["user": saved.username, "reason": "\(error)"])
            await home(
                saved, heading: "Signed in as \(saved.username)", notice: [Sentence.unreachable, Sentence.offline])
        }
    }

    /// Creates an account with a passkey; asks for the username unless given.
    func createAccount(username given: String? = nil) async {
        var username = given
        // A new flow: the support advice counts failures of this flow only.
        failures = 0
        while true {
            if username == nil {
                console.screen(["Courier: create an account", ""])
                guard let typed = await console.readLine("Username: ") else { return }
                let trimmed = typed.trimmingCharacters(in: .whitespaces)
                guard !trimmed.isEmpty else { continue }
                username = trimmed
            }
            guard let name = username else { return }
            do {
                let options = try await server.registrationOptions(username: name)
                console.say("Creating a passkey for \(name) on courier.passkeyd.test…")
                let (client, agent) = try client(CourierServer.origin)
                let response = try await client.create(options)
                await agent.endTouchPrompt()
                let token = try await server.finishRegistration(response, username: name)
                await signedIn(
                    name, token: token, event: "account-created", heading: "Account created: signed in as \(name)")
                return
            } catch CourierServer.Failure.usernameTaken(let taken) {
                log.record("account-create-failed", ["user": taken, "reason": "username-taken"])
                console.say("The username \(taken) is taken. Enter to choose another, Esc to go back.")
                guard await console.confirm() else { return }
                username = nil
            } catch {
                guard await offerRetry(after: error, doing: "account-create", user: name) else { return }
            }
        }
    }

    /// A username-less sign-in with a passkey.
    func signIn() async {
        failures = 0
        while true {
            // The screen comes first, so an unreachable server's sentence stands under it, not under the list.
            console.screen(["Courier: sign in with a passkey", ""])
            do {
                let options = try await server.authenticationOptions()
                let (client, agent) = try client(CourierServer.origin)
                let result = try await client.get(options)
                await agent.endTouchPrompt()
                guard case .passkey(let assertion) = result else { return }
                let (username, token) = try await server.finishAuthentication(assertion)
                await signedIn(username, token: token, event: "signed-in", heading: "Signed in as \(username)")
                return
            } catch let error as WebAuthnError where error.cause == .ctap(.noCredentials) {
                log.record("sign-in-failed", ["reason": "no-passkey"])
                console.say(
                    "There is no passkey for Courier on this device. Create an account? Enter to create one, Esc to go back."
                )
                if await console.confirm() { await createAccount() }
                return
            } catch {
                guard await offerRetry(after: error, doing: "sign-in", user: nil) else { return }
            }
        }
    }

    /// The server issued a session: the device keeps it, the failure count starts over, the account opens.
    private func signedIn(_ username: String, token: String, event: String, heading: String) async {
        failures = 0
        log.record(event, ["user": username])
        let session = CourierSessionFile.Session(username: username, token: token)
        sessionFile.save(session)
        await home(session, heading: heading)
    }

    /// Says what went wrong and offers a retry; true when the person wants one.
    private func offerRetry(after error: any Error, doing action: String, user: String?) async -> Bool {
        let sentence: String
        let reason: String
        switch error {
        case CourierServer.Failure.unreachable:
            (sentence, reason) = (Sentence.unreachable, "unreachable")
        case CourierServer.Failure.notRecognized:
            (sentence, reason) = (Sentence.notRecognized, "not-recognized")
        case CourierServer.Failure.rejected(let why):
            (sentence, reason) = (Sentence.notRecognized, "rejected-\(why)")
        case let error as WebAuthnError where error.name == .notAllowed || error.name == .abort:
            (sentence, reason) = ("That was cancelled.", "cancelled")
        case let error as WebAuthnError:
            (sentence, reason) = ("That did not work: \(error.message)", error.name.rawValue)
        default:
            (sentence, reason) = ("That did not work: \(error)", "error")
        }
        var fields: KeyValuePairs<String, String> = ["reason": reason]
        if let user { fields = ["reason": reason, "user": user] }
        log.record("\(action)-failed", fields)
        if reason != "cancelled" { failures += 1 }
        console.say(sentence)
        if failures >= 3 { console.say(Sentence.support) }
        console.say("r to retry, Esc to go back")
        return await console.key(among: ["r"]) == .character("r")
    }

    /// The signed-in screen: the account, then sign-out (the server ends the session, the
    /// device forgets it) or back to the list still signed in.
    private func home(_ session: CourierSessionFile.Session, heading: String, notice: [String] = []) async {
        let readOnly = !notice.isEmpty
        let deliveries =
            readOnly ? "Deliveries: not shown while offline." : "Deliveries for \(session.username): none on the way."
        console.screen(
            ["Courier", "", "✓ \(heading)"] + notice + [
                "", deliveries, "",
                readOnly
                    ? "Esc: back to the list (sign-out needs the connection)"
                    : "Enter: sign out    Esc: back to the list"
            ])
        guard await console.confirm(), !readOnly else { return }
        do { try await server.signOut(session.token) } catch {
            log.record("sign-out-failed", ["user": session.username, "reason": "\(error)"])
        }
        sessionFile.clear()
        log.record("signed-out", ["user": session.username])
        console.screen(["Courier", "", "Signed out of \(session.username).", "", "Enter to continue"])
        _ = await console.confirm()
    }
}
