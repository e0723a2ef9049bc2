/// The demo's HTML: every page is the same frame (title, one card with an input area and an
/// action button, a status line) and loads the same stylesheet and script; the script reads
/// what to do from the card's `data-` attributes.
enum WebPages {
    static func featureList() -> String {
        let items = Scenario.allCases.map { scenario in
            """
            <li><a href="/scenario/\(scenario.rawValue)"><strong>\(escapeHTML(scenario.webTitle))</strong>\
            <span>\(escapeHTML(scenario.webSummary))</span></a></li>
            """
        }.joined(separator: "\n")
        return frame(
            title: "Passkey Shop", page: "features",
            body: """
                <main class="card wide">
                  <h1>Passkey Shop</h1>
                  <p class="lead">Six ways a site signs you in with a passkey. Each page runs the standard WebAuthn API; \
                this server verifies every answer.</p>
                  <ol class="features">
                \(items)
                  </ol>
                  <p class="aside">Also here: <a id="courier-link" href="/">the Courier app</a> — accounts made with a passkey, \
                sessions that survive a restart, and what it says when things go wrong.</p>
                </main>
                """)
    }

    static func scenario(_ scenario: Scenario) -> String {
        let fields = scenario.fields.map { field in
            """
                <label\(field.hidden ? " hidden" : "")>\(field.label)<input id="\(field.id)" name="\(field.id)" \
            type="\(field.type)" autocomplete="\(field.autocomplete)"></label>
            """
        }.joined(separator: "\n")
        return frame(
            title: scenario.webTitle, page: "scenario",
            body: """
                <main class="card" data-scenario="\(scenario.rawValue)">
                  <p class="crumb"><a href="/">← All scenarios</a></p>
                  <h1>\(escapeHTML(scenario.webTitle))</h1>
                  <p class="lead">\(escapeHTML(scenario.webSummary))</p>
                  <form id="form" class="inputs">
                \(fields.isEmpty ? "    <p class=\"note\">No username needed: the passkey says whose account it is.</p>" : fields)
                    <button id="action" type="submit">\(escapeHTML(scenario.action))</button>
                  </form>
                  <p id="status" role="status"></p>
                </main>
                """)
    }

    static func signedIn(_ user: ShopSessions.User) -> String {
        var rows = [("Username", user.name), ("Name", user.displayName), ("How", user.method)]
        if let id = user.credentialID { rows.append(("Passkey", id)) }
        if let algorithm = user.algorithm { rows.append(("Algorithm", algorithm)) }
        if let count = user.signCount { rows.append(("Signature counter", "\(count)")) }
        let list = rows.map {
            "    <dt>\($0.0)</dt><dd id=\"user-\($0.0.lowercased().replacingOccurrences(of: " ", with: "-"))\">\(escapeHTML($0.1))</dd>"
        }
        .joined(separator: "\n")
        return frame(
            title: "Signed in", page: "signed-in",
            body: """
                <main class="card">
                  <h1 id="welcome">Signed in as \(escapeHTML(user.displayName))</h1>
                  <p class="verified" id="verified">✓ Verified by the server</p>
                  <dl class="user">
                \(list)
                  </dl>
                  <form id="form" class="inputs"><button id="action" type="submit">Sign out</button></form>
                  <p id="status" role="status"></p>
                </main>
                """)
    }

    /// The courier app: its screens are sections the script shows one at a time; the app's
    /// fixed sentences come from `Courier.Sentence`, so the terminal and the web say the same.
    static func courier() -> String {
        frame(
            title: "Courier", page: "courier",
            body: """
                <main class="card courier" data-unreachable="\(escapeHTML(Courier.Sentence.unreachable))" \
                data-not-recognized="\(escapeHTML(Courier.Sentence.notRecognized))" \
                data-support="\(escapeHTML(Courier.Sentence.support))" data-offline="\(escapeHTML(Courier.Sentence.offline))">
                  <p class="crumb"><a id="shop-link" href="/">← Passkey Shop</a>
                    <label class="switch"><input id="offline" type="checkbox"> Offline</label></p>
                  <h1>Courier</h1>
                  <p id="loading" class="loading" hidden>Loading…</p>
                  <section id="welcome" hidden>
                    <h2>Welcome</h2>
                    <p class="lead">Deliveries, tracked. Your account is a passkey: nothing to remember.</p>
                    <form id="form" class="inputs">
                      <label>Username<input id="username" name="username" autocomplete="username"></label>
                      <button id="create" type="submit">Create Account with Passkey</button>
                      <button id="sign-in" type="button" class="secondary">Sign In with Passkey</button>
                    </form>
                  </section>
                  <section id="home" hidden>
                    <h2 id="heading"></h2>
                    <p id="deliveries"></p>
                    <button id="sign-out" type="button">Sign Out</button>
                  </section>
                  <div id="messages" role="status">
                    <p id="status"></p>
                    <p id="support" hidden></p>
                    <button id="retry" type="button" hidden>Try Again</button>
                  </div>
                </main>
                """)
    }

    private static func frame(title: String, page: String, body: String) -> String {
        """
        <!doctype html>
        <html lang="en">
        <head>
          <meta charset="utf-8">
          <meta name="viewport" content="width=device-width, initial-scale=1">
          <title>\(escapeHTML(title))</title>
          <link rel="stylesheet" href="/assets/demo.css">
          <script src="/assets/demo.js" defer></script>
        </head>
        <body data-page="\(page)">
        \(body)
        </body>
        </html>

        """
    }
}

/// What a scenario's page shows: its title, what it does, its fields and its button.
extension Scenario {
    struct Field {
        let id: String
        let label: String
        let type: String
        let autocomplete: String
        var hidden = false
    }

    var webTitle: String {
        switch self {
        case .registration: return "Registration"
        case .passkeyOnly: return "Passkey-only sign-in"
        case .passkeyOrPassword: return "Passkey or password"
        case .autofill: return "AutoFill"
        case .immediate: return "Immediate"
        case .autofillHybrid: return "AutoFill hybrid"
        }
    }

    var webSummary: String {
        switch self {
        case .registration: return "Create a passkey for a username; a second one for the same name is refused."
        case .passkeyOnly: return "One button: the browser lists your passkeys for this site and you pick one."
        case .passkeyOrPassword:
            return
                "One request offers your passkeys and saved passwords; a typed or filled password goes to the server."
        case .autofill: return "Your passkeys appear as suggestions under the username field; pick one to sign in."
        case .immediate: return "Sign in at once if a passkey is right here; otherwise the page asks for your password."
        case .autofillHybrid:
            return "AutoFill runs in the field; the button cancels it and asks for a passkey or password instead."
        }
    }

    var action: String {
        switch self {
        case .registration: return "Create passkey"
        case .passkeyOnly, .autofillHybrid: return "Sign in with a passkey"
        case .passkeyOrPassword, .immediate: return "Sign in"
        case .autofill: return "Continue"
        }
    }

    var fields: [Field] {
        let password = Field(id: "password", label: "Password", type: "password", autocomplete: "current-password")
        switch self {
        case .registration: return [Field(id: "username", label: "Username", type: "text", autocomplete: "username")]
        case .passkeyOnly: return []
        case .passkeyOrPassword:
            return [Field(id: "username", label: "Username", type: "text", autocomplete: "username"), password]
        case .immediate:
            var hidden = password
            hidden.hidden = true
            return [
                Field(id: "username", label: "Username", type: "text", autocomplete: "username", hidden: true), hidden
            ]
        case .autofill:
            return [Field(id: "username", label: "Username", type: "text", autocomplete: "username webauthn")]
        case .autofillHybrid:
            return [Field(id: "username", label: "Username", type: "text", autocomplete: "username webauthn"), password]
        }
    }
}
