// passkeyd's bridge (content script, isolated world, document_start, every frame).
//
// Carries page.js's requests of this window to the background script and the answers back,
// and shows the user agent's own UI for this frame: the modal account chooser (`choose`),
// conditional mediation's suggestions (`suggest`, on focus of an `autocomplete="… webauthn"`
// field, WebAuthn L3 §5.1.4.1 and HTML's autofill "webauthn" token) and the authenticator's PIN
// dialog (`pin`, CTAP 2.1 §6.5.5.7). All live in a closed shadow root and act only on trusted
// (user or automation-protocol) events, so the page can neither read the accounts nor pick one,
// nor read, type or submit the PIN.
(() => {
  "use strict";
  const api = globalThis.browser ?? globalThis.chrome;
  const TAG = "passkeyd";
  const FROM_PAGE = ["create", "get", "capabilities", "signal", "abort"];
  let port = null;

  const toPage = (message) => window.postMessage(JSON.stringify({ [TAG]: "to-page", ...message }), "*");

  const background = () => {
    if (port) return port;
    port = api.runtime.connect({ name: "passkeyd" });
    port.onMessage.addListener(fromBackground);
    port.onDisconnect.addListener(() => {
      port = null;
      for (const id of waiting) {
        toPage({ type: "error", id, name: "NotAllowedError", message: "The passkeyd extension was reloaded or disabled." });
      }
      waiting.clear();
      closeUI();
      suggestion = null;
    });
    return port;
  };
  const waiting = new Set();  // local ids sent and not answered yet

  // Only this window's own page.js: a message from another frame (event.source) is ignored,
  // and no member but the request's own is forwarded (the origin is the background's to fill).
  window.addEventListener("message", (event) => {
    if (event.source !== window || typeof event.data !== "string") return;
    let message;
    try { message = JSON.parse(event.data); } catch { return; }
    if (!message || message[TAG] !== "to-bridge" || !FROM_PAGE.includes(message.type)) return;
    if (typeof message.id !== "number") return;
    const { type, id, options, mediation, kind } = message;
    if (type === "abort") {
      waiting.delete(id);
      endUI(id);
    } else {
      waiting.add(id);
    }
    background().postMessage({ type, id, options, mediation, kind });
  });

  function fromBackground(message) {
    // A prompt for a request this page already gave up (aborted) is never shown.
    if (message.type === "pin" && !waiting.has(message.id)) {
      answer(message.prompt, { pin: null });
      return;
    }
    if ((message.type === "choose" || message.type === "suggest") && !waiting.has(message.id)) {
      choose(message.prompt, null);
      return;
    }
    switch (message.type) {
      case "result":
      case "error":
      case "fallback":
        waiting.delete(message.id);
        endUI(message.id);
        toPage(message);
        return;
      case "choose":
        showChooser(message);
        return;
      case "pin":
        showPIN(message);
        return;
      case "suggest":
        suggestion = message;
        if (webauthnField(document.activeElement)) showSuggestions(document.activeElement);
    }
  }

  const answer = (prompt, members) => background().postMessage({ type: "choice", prompt, ...members });
  const choose = (prompt, index) => answer(prompt, { index });

  // -- the UI: one closed shadow root at a time -------------------------------------------

  let ui = null;           // {host, id, prompt, kind, entries, selected, buttons, field?}
  let suggestion = null;   // the pending `suggest` of this frame
  const pinGiven = new Set();  // local ids whose last PIN dialog was answered with a PIN

  const STYLE = `
    :host { all: initial; }
    .overlay { position: fixed; inset: 0; background: rgba(0,0,0,.35); z-index: 2147483647;
      display: flex; align-items: center; justify-content: center; font: 14px system-ui, sans-serif; }
    .panel { background: #fff; color: #111; border-radius: 8px; padding: 12px; min-width: 260px;
      box-shadow: 0 4px 24px rgba(0,0,0,.3); outline: none; }
    .dropdown { position: fixed; z-index: 2147483647; background: #fff; color: #111; border: 1px solid #999;
      border-radius: 4px; font: 14px system-ui, sans-serif; min-width: 220px; padding: 4px 0; }
    h1 { font-size: 14px; margin: 0 0 8px; }
    button { display: block; width: 100%; text-align: left; border: 0; background: none; padding: 6px 10px;
      font: inherit; color: inherit; cursor: pointer; }
    button[aria-selected="true"] { background: #dbe7ff; }
    .name { display: block; color: #555; font-size: 12px; }
    .cancel { margin-top: 6px; text-align: right; color: #333; }
    input { display: block; width: 100%; box-sizing: border-box; margin: 8px 0; padding: 6px; font: inherit; }
    .note { color: #555; font-size: 12px; margin: 0; }
    .wrong { color: #a00; }
    .actions { display: flex; gap: 8px; justify-content: flex-end; }
    .actions button { width: auto; text-align: center; border: 1px solid #999; border-radius: 4px; }`;

  const element = (tag, attributes, ...children) => {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attributes || {})) node.setAttribute(key, value);
    for (const child of children) node.append(child);
    return node;
  };

  const entryButtons = (entries, pick) => entries.map((entry, index) => {
    const button = element("button", { role: "option", "aria-selected": String(index === 0) },
      entry.label || entry.displayName || "Passkey",
      element("span", { class: "name" }, entry.displayName && entry.displayName !== entry.label ? entry.displayName : ""));
    button.addEventListener("mousedown", (event) => event.preventDefault());  // keep the field's focus
    button.addEventListener("click", (event) => { if (event.isTrusted) pick(index); });
    return button;
  });

  const mount = (content) => {
    const host = document.createElement("passkeyd-ui");
    const root = host.attachShadow({ mode: "closed" });
    root.append(element("style", {}, STYLE), content);
    (document.body || document.documentElement).append(host);
    return host;
  };

  const select = (delta) => {
    ui.selected = (ui.selected + delta + ui.entries.length) % ui.entries.length;
    ui.buttons.forEach((button, index) => button.setAttribute("aria-selected", String(index === ui.selected)));
  };

  const closeUI = () => {
    if (ui) ui.host.remove();
    ui = null;
  };
  const endUI = (id) => {
    pinGiven.delete(id);
    if (ui && ui.id === id) closeUI();
    if (suggestion && suggestion.id === id) suggestion = null;
  };

  /** Modal mediation's account chooser (CTAP 2.1 §6.2.2 step 12's "select a credential"). */
  function showChooser(message) {
    closeUI();
    const pick = (index) => {
      if (!ui || ui.prompt !== message.prompt) return;
      closeUI();
      choose(message.prompt, index);
    };
    const buttons = entryButtons(message.entries, pick);
    const cancel = element("button", { class: "cancel" }, "Cancel");
    cancel.addEventListener("click", (event) => { if (event.isTrusted) pick(null); });
    const panel = element("div", { class: "panel", role: "listbox", tabindex: "-1" },
      element("h1", {}, `Choose a passkey for ${message.rpId}`), ...buttons, cancel);
    ui = { host: mount(element("div", { class: "overlay" }, panel)), id: message.id, prompt: message.prompt,
      kind: "choose", entries: message.entries, selected: 0, buttons };
    panel.addEventListener("keydown", (event) => {
      if (!event.isTrusted || !ui || ui.kind !== "choose") return;
      if (event.key === "ArrowDown") select(1);
      else if (event.key === "ArrowUp") select(-1);
      else if (event.key === "Enter") pick(ui.selected);
      else if (event.key === "Escape") pick(null);
      else return;
      event.preventDefault();
      event.stopPropagation();
    });
    panel.focus();
  }

  /** The authenticator's PIN, asked for this frame's request. The PIN goes to the background
   *  script in one `choice` and is kept nowhere; a new dialog for the same request after a PIN
   *  was given means the authenticator refused it (pinInvalid), said above the field. */
  function showPIN(message) {
    closeUI();
    const wrong = pinGiven.has(message.id);
    pinGiven.delete(message.id);
    const field = element("input", { type: "password", autocomplete: "off", "aria-label": "PIN" });
    const submit = (pin) => {
      if (!ui || ui.prompt !== message.prompt) return;
      closeUI();
      if (pin !== null) pinGiven.add(message.id);
      answer(message.prompt, { pin });
    };
    const ok = element("button", {}, "OK");
    const cancel = element("button", {}, "Cancel");
    ok.addEventListener("click", (event) => { if (event.isTrusted) submit(field.value); });
    cancel.addEventListener("click", (event) => { if (event.isTrusted) submit(null); });
    const retries = Number.isInteger(message.retriesLeft)
      ? `${message.retriesLeft} ${message.retriesLeft === 1 ? "try" : "tries"} left before the authenticator blocks its PIN.`
      : "";
    const panel = element("div", { class: "panel", role: "dialog", "aria-label": "PIN" },
      element("h1", {}, `Enter your authenticator's PIN to continue on ${message.rpId}`),
      element("p", { class: "note wrong" }, wrong ? "That PIN was wrong." : ""),
      field, element("p", { class: "note retries" }, retries), element("div", { class: "actions" }, cancel, ok));
    // Keys reach `key` through the window's capture listener below, never the page.
    const key = (event) => {
      if (event.key === "Enter") submit(field.value);
      else if (event.key === "Escape") submit(null);
      else return;
      event.preventDefault();
    };
    ui = { host: mount(element("div", { class: "overlay" }, panel)), id: message.id, prompt: message.prompt, kind: "pin", key };
    field.focus();
  }

  // What is typed into the PIN field travels as composed events retargeted to the shadow host,
  // where the page would read it (KeyboardEvent.key, InputEvent.data). This capture listener on
  // the window, added at document_start before any page script, runs first and ends them there;
  // the field still gets its text (the browser's default action is not cancelled).
  for (const type of ["keydown", "keypress", "keyup", "beforeinput", "input", "textInput",
    "compositionstart", "compositionupdate", "compositionend"]) {
    window.addEventListener(type, (event) => {
      if (!ui || ui.kind !== "pin" || event.target !== ui.host) return;
      event.stopImmediatePropagation();
      if (type === "keydown" && event.isTrusted) ui.key(event);
    }, true);
  }

  const webauthnField = (node) => node instanceof HTMLElement && (node.localName === "input" || node.localName === "textarea")
    && (node.getAttribute("autocomplete") || "").toLowerCase().split(/\s+/).includes("webauthn");

  /** Conditional mediation's suggestions under the focused field. */
  function showSuggestions(field) {
    if (!suggestion || (ui && ui.kind !== "suggest")) return;
    closeUI();
    const current = suggestion;
    const pick = (index) => {
      if (suggestion !== current) return;
      suggestion = null;
      closeUI();
      choose(current.prompt, index);
    };
    const buttons = entryButtons(current.entries, pick);
    const box = field.getBoundingClientRect();
    const dropdown = element("div", { class: "dropdown", role: "listbox",
      style: `left:${Math.round(box.left)}px;top:${Math.round(box.bottom + 2)}px` }, ...buttons);
    ui = { host: mount(dropdown), id: current.id, prompt: current.prompt, kind: "suggest",
      entries: current.entries, selected: 0, buttons, field, pick };
  }

  document.addEventListener("focusin", (event) => {
    if (suggestion && webauthnField(event.target)) showSuggestions(event.target);
  }, true);
  document.addEventListener("focusout", (event) => {
    if (ui && ui.kind === "suggest" && event.target === ui.field) closeUI();  // stays pending
  }, true);
  document.addEventListener("keydown", (event) => {
    if (!event.isTrusted || !ui || ui.kind !== "suggest" || event.target !== ui.field) return;
    if (event.key === "ArrowDown") select(1);
    else if (event.key === "ArrowUp") select(-1);
    else if (event.key === "Enter") ui.pick(ui.selected);
    else if (event.key === "Escape") closeUI();
    else return;
    event.preventDefault();
    event.stopImmediatePropagation();
  }, true);
})();
