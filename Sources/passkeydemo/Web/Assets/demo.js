// passkeydemo --web: the one script of every page. It uses only the standard WebAuthn API
// (WebAuthn L3 §5.1.8-§5.1.11: parseCreationOptionsFromJSON, parseRequestOptionsFromJSON,
// toJSON) and fetch, so whatever provides passkeys to the browser answers: passkeyd's
// extension, the browser's own authenticator, a security key.
"use strict";
(() => {
  const $ = (id) => document.getElementById(id);

  /** The server refused (`code` from its JSON), or could not be reached (`unreachable`). */
  class ServerError extends Error {
    constructor(code, message) {
      super(message);
      this.code = code;
    }
  }

  async function post(path, body) {
    let response;
    try {
      response = await fetch(path, {
        method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body ?? {}),
      });
    } catch {
      throw new ServerError("unreachable", "The server could not be reached.");
    }
    const reply = await response.json().catch(() => ({}));
    if (!response.ok) throw new ServerError(reply.error || `http-${response.status}`, reply.message || `The server answered ${response.status}.`);
    return reply;
  }

  const say = (text, kind = "info") => {
    const line = $("status");
    line.textContent = text;
    line.dataset.kind = kind;
  };

  // -- WebAuthn, the standard way ----------------------------------------------------------

  async function createPasskey(optionsPath, body) {
    const options = PublicKeyCredential.parseCreationOptionsFromJSON(await post(optionsPath, body));
    const credential = await navigator.credentials.create({ publicKey: options });
    return credential.toJSON();
  }

  /** A sign-in request. `password` also asks for a saved password (Credential Management's
   *  `password` member); a browser that serves the two kinds only in separate requests
   *  (NotSupportedError) gets the passkey request alone. */
  async function getCredential(optionsPath, { mediation, signal, password = false } = {}) {
    const options = PublicKeyCredential.parseRequestOptionsFromJSON(await post(optionsPath));
    const request = { publicKey: options, signal };
    if (mediation !== undefined) request.mediation = mediation;
    if (!password) return navigator.credentials.get(request);
    try {
      return await navigator.credentials.get({ ...request, password: true });
    } catch (error) {
      if (error.name !== "NotSupportedError") throw error;
      return navigator.credentials.get(request);
    }
  }

  // -- the shop's scenarios ----------------------------------------------------------------

  const NO_LOCAL_PASSKEY = "No passkey for this site on this device: sign in with your password.";

  /** What the page says when a step fails: the server's own sentence, or the WebAuthn error's. */
  function explain(error) {
    if (error instanceof ServerError) return error.message;
    switch (error.name) {
      case "InvalidStateError": return "This username already has a passkey on this device (InvalidStateError): sign in with it instead.";
      case "NotAllowedError": return `Cancelled or not allowed (NotAllowedError): ${error.message}`;
      case "AbortError": return "The request was aborted (AbortError).";
      default: return `${error.name}: ${error.message}`;
    }
  }

  /** A credential the browser gave: the server verifies it and opens the success page. */
  async function finishSignIn(credential) {
    const reply = credential.type === "password"
      ? await post("/api/password", { username: credential.id, password: credential.password })
      : await post("/api/sign-in", { credential: credential.toJSON() });
    location.assign(reply.next);
  }

  const passwordSignIn = async () => {
    const reply = await post("/api/password", { username: $("username").value, password: $("password").value });
    location.assign(reply.next);
  };

  // AutoFill (WebAuthn L3 §5.1.4.1 conditional mediation): started on load, aborted when the
  // page goes away (pagehide), restarted if the page comes back from the back/forward cache.
  let conditional = null;

  function startConditional() {
    const controller = new AbortController();
    document.body.dataset.conditional = "starting";
    const settled = (async () => {
      if (!(await PublicKeyCredential.isConditionalMediationAvailable?.())) {
        say("This browser offers no passkey AutoFill.", "error");
        return;
      }
      const pending = getCredential("/api/sign-in/options", { mediation: "conditional", signal: controller.signal });
      document.body.dataset.conditional = "pending";
      await finishSignIn(await pending);
    })().catch((error) => {
      document.body.dataset.conditional = error.name;
      sessionStorage.setItem("passkeydemo.conditional", error.name);
      if (error.name !== "AbortError") say(explain(error), "error");
    });
    conditional = { controller, settled };
  }

  /** Cancels the pending AutoFill request and waits until it has ended, so the modal request
   *  that follows finds the authenticator free. */
  async function stopConditional() {
    if (!conditional) return;
    conditional.controller.abort();
    await conditional.settled;
    conditional = null;
  }

  addEventListener("pagehide", () => conditional?.controller.abort());
  addEventListener("pageshow", (event) => {
    if (event.persisted && conditional) startConditional();
  });

  const scenarios = {
    registration: {
      async action() {
        const username = $("username").value.trim();
        const credential = await createPasskey("/api/register/options", { username });
        const reply = await post("/api/register", { credential });
        location.assign(reply.next);
      },
    },
    "passkey-only": {
      action: async () => finishSignIn(await getCredential("/api/sign-in/options")),
    },
    "passkey-or-password": {
      // A password typed or filled in goes to the server; otherwise one request offers both kinds.
      async action() {
        if ($("password").value) return passwordSignIn();
        return finishSignIn(await getCredential("/api/sign-in/options", { password: true }));
      },
    },
    autofill: {
      load: startConditional,
      async action() {
        say("Pick one of your passkeys in the suggestions under the username field.");
        $("username").focus();
      },
    },
    immediate: {
      // preferImmediatelyAvailableCredentials as a mediation: NotAllowedError at once, with no UI,
      // when no passkey is right here; the page then asks for the password.
      async action() {
        if (!$("password").closest("label").hidden) return passwordSignIn();
        try {
          return await finishSignIn(await getCredential("/api/sign-in/options", { mediation: "immediate" }));
        } catch (error) {
          if (error.name !== "NotAllowedError") throw error;
          for (const id of ["username", "password"]) $(id).closest("label").hidden = false;
          $("username").focus();
          say(NO_LOCAL_PASSKEY, "error");
        }
      },
    },
    "autofill-hybrid": {
      load: startConditional,
      // The password manager filled the password in (or the person typed it): straight to the
      // server. Otherwise AutoFill is cancelled, then the modal passkey-or-password request runs.
      async action() {
        if ($("password").value) return passwordSignIn();
        await stopConditional();
        try {
          return await finishSignIn(await getCredential("/api/sign-in/options", { password: true }));
        } catch (error) {
          startConditional();  // still on the page: AutoFill runs again in the field
          throw error;
        }
      },
    },
  };

  function runShop(card) {
    const scenario = scenarios[card.dataset.scenario];
    const button = $("action");
    $("form").addEventListener("submit", async (event) => {
      event.preventDefault();
      button.disabled = true;
      say("Working…", "busy");
      try {
        await scenario.action();
        if ($("status").dataset.kind === "busy") say("");
      } catch (error) {
        say(explain(error), "error");
      } finally {
        button.disabled = false;
      }
    });
    scenario.load?.();
  }

  function runSignedIn() {
    $("form").addEventListener("submit", async (event) => {
      event.preventDefault();
      await post("/api/sign-out");
      location.assign("/");
    });
  }

  function runFeatures() {
    // The courier app is the same server under courier.localhost (RFC 6761 §6.3: loopback).
    $("courier-link").href = `${location.protocol}//courier.${location.host}/`;
  }

  // -- the courier app ----------------------------------------------------------------------

  function runCourier(main) {
    const sentence = main.dataset;  // unreachable, notRecognized, support, offline: Courier.Sentence
    const buttons = [$("create"), $("sign-in"), $("sign-out"), $("retry")];
    const SAVED = "courier.username";  // who was signed in, for the offline screen (the token stays in its HttpOnly cookie)
    let failures = 0;  // failures in a row in this flow, cancellations not counted
    let retry = null;

    $("shop-link").href = `${location.protocol}//${location.host.replace(/^courier\./, "")}/`;

    const show = (screen) => {
      $("welcome").hidden = screen !== "welcome";
      $("home").hidden = screen !== "home";
    };
    const tell = (text, { again = null } = {}) => {
      say(text, text ? "error" : "info");
      retry = again;
      $("retry").hidden = !again;
      $("support").textContent = sentence.support;
      $("support").hidden = failures < 3;
    };
    const home = (username, heading, offline = false) => {
      localStorage.setItem(SAVED, username);
      $("heading").textContent = `✓ ${heading}`;
      $("deliveries").textContent = offline ? "Deliveries: not shown while offline." : `Deliveries for ${username}: none on the way.`;
      show("home");
    };
    const welcome = (text = "") => {
      show("welcome");
      tell(text);
    };

    /** One operation: the loading state disables every button; a failure says why and offers a retry. */
    async function run(operation, { fresh = true } = {}) {
      if (fresh) failures = 0;
      tell("");
      $("loading").hidden = false;
      for (const button of buttons) button.disabled = true;
      try {
        await operation();
        failures = 0;
        $("support").hidden = true;
      } catch (error) {
        fail(error, () => run(operation, { fresh: false }));
      } finally {
        $("loading").hidden = true;
        for (const button of buttons) button.disabled = false;
      }
    }

    function fail(error, again) {
      if (error instanceof ServerError && error.code === "username-taken") return tell(error.message);
      let text;
      if (error instanceof ServerError) {
        text = error.code === "unreachable" ? sentence.unreachable
          : error.code === "not-recognized" ? sentence.notRecognized : error.message;
      } else if (error.name === "NotAllowedError" || error.name === "AbortError") {
        text = "That was cancelled.";
      } else {
        text = `That did not work: ${error.message}`;
      }
      if (text !== "That was cancelled.") failures += 1;
      tell(text, { again });
    }

    const createAccount = async () => {
      const username = $("username").value.trim();
      const credential = await createPasskey("/api/account/options", { username });
      const reply = await post("/api/account", { username, credential });
      home(reply.username, `Account created: signed in as ${reply.username}`);
    };
    const signIn = async () => {
      const credential = await getCredential("/api/sign-in/options");
      const reply = await post("/api/sign-in", { credential: credential.toJSON() });
      home(reply.username, `Signed in as ${reply.username}`);
    };
    const signOut = async () => {
      const name = localStorage.getItem(SAVED);
      await post("/api/sign-out");
      localStorage.removeItem(SAVED);
      welcome(`Signed out of ${name}.`);
    };

    /** At start: the saved session, checked by the server; offline, the account opens read-only.
     *  `data-starts` on the body counts the starts finished (what a test waits for). */
    async function start() {
      try {
        await open();
      } finally {
        document.body.dataset.starts = String(Number(document.body.dataset.starts ?? 0) + 1);
      }
    }

    async function open() {
      try {
        const state = await post("/api/session");
        if (state.username) return home(state.username, `Welcome back, ${state.username} (session restored, checked by the server)`);
        localStorage.removeItem(SAVED);
        welcome(state.ended ? "Your session has ended. Sign in again." : "");
      } catch (error) {
        if (!(error instanceof ServerError && error.code === "unreachable")) return welcome(explain(error));
        const saved = localStorage.getItem(SAVED);
        if (!saved) return welcome(sentence.unreachable);
        home(saved, `Signed in as ${saved}`, true);
        tell(`${sentence.unreachable} ${sentence.offline}`);
      }
    }

    $("form").addEventListener("submit", (event) => {
      event.preventDefault();
      run(createAccount);
    });
    $("sign-in").addEventListener("click", () => run(signIn));
    $("sign-out").addEventListener("click", () => run(signOut));
    $("retry").addEventListener("click", () => retry?.());
    $("offline").addEventListener("change", async (event) => {
      await post("/api/network", { online: !event.target.checked });
      await start();
    });
    fetch("/api/network").then((reply) => reply.json()).then((network) => { $("offline").checked = !network.online; })
      .finally(start);
  }

  const runners = { scenario: () => runShop(document.querySelector("main[data-scenario]")),
    "signed-in": runSignedIn, features: runFeatures, courier: () => runCourier(document.querySelector("main.courier")) };
  runners[document.body.dataset.page]?.();
})();
