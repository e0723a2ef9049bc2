// passkeyd's bridge (content script, isolated world, document_start, every frame).
//
// Carries page.js's requests of this frame to the background script and the answers back, over
// a private MessagePort page.js hands over before any page script runs (the page's own `message`
// listeners see none of this traffic). To each create/get it adds what only this isolated world
// can read truthfully, for the background to decide on: whether the document's origin is opaque
// (a sandboxed document), whether the permissions policy allows the feature (WebAuthn L3 §5.1.3
// step 2, §5.1.4.1 step 2; Chromium's document.featurePolicy), whether the frame has transient
// activation (navigator.userActivation) and whether it is same-origin with its ancestors.
//
// The one UI left in the page is conditional mediation's suggestion list under an
// `autocomplete="… webauthn"` field (WebAuthn L3 §5.1.4.1, HTML's autofill "webauthn" token), in a
// closed shadow root: it opens only on the person's own input on the field (a trusted pointer
// press, or ArrowDown), ignores input for half a second after it appears, is built only when it
// opens, has one size whatever the number of accounts, and takes a pick only while it is really
// visible. Choosers, the consent question and the PIN are in the extension's own window.
(() => {
  "use strict";
  const api = globalThis.browser ?? globalThis.chrome;
  const FROM_PAGE = ["create", "get", "capabilities", "signal", "abort"];
  const LIMIT = 1024 * 1024;  // the host's inbound limit; background.js checks it too
  const GUARD_MS = 500;
  let port = null;
  const waiting = new Set();  // local ids sent and not answered yet

  // -- the channel to page.js --------------------------------------------------------------

  let pagePort = null;        // the private MessagePort, once page.js handed it over

  const toPage = (message) => { if (pagePort) pagePort.postMessage(message); };

  // page.js (MAIN world) offers a MessagePort in a "passkeyd:channel" event at document_start,
  // before any page script runs; the first one is taken and the listener goes, so a page's own
  // offer later reaches nothing. Whichever of the two scripts runs first, "passkeyd:ready" makes
  // page.js offer (again).
  const takeChannel = (event) => {
    if (pagePort || !event.ports || !event.ports[0]) return;
    event.stopImmediatePropagation();
    pagePort = event.ports[0];
    window.removeEventListener("passkeyd:channel", takeChannel, true);
    pagePort.onmessage = (message) => fromPage(message.data);
    pagePort.postMessage({ type: "hello" });
  };
  window.addEventListener("passkeyd:channel", takeChannel, true);
  window.dispatchEvent(new CustomEvent("passkeyd:ready"));

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

  /** Whether every ancestor has this document's origin (WebAuthn L3's sameOriginWithAncestors). */
  const sameOriginWithAncestors = () => {
    try {
      for (let w = window; w !== w.parent; w = w.parent) if (w.parent.origin !== window.origin) return false;
      return true;
    } catch {
      return false;  // a cross-origin ancestor's origin cannot be read
    }
  };

  /** What this isolated world sees of the document, for the background's decision. */
  const seen = (type) => {
    const policy = document.featurePolicy;
    const feature = type === "create" ? "publickey-credentials-create" : "publickey-credentials-get";
    return {
      opaque: window.origin === "null",
      policy: policy && typeof policy.allowsFeature === "function" ? policy.allowsFeature(feature) : null,
      activation: navigator.userActivation ? navigator.userActivation.isActive : null,
      sameOriginWithAncestors: sameOriginWithAncestors(),
    };
  };

  const size = (value) => {
    try { return new TextEncoder().encode(JSON.stringify(value)).length; } catch { return Infinity; }
  };

  function fromPage(message) {
    if (!message || typeof message !== "object" || !FROM_PAGE.includes(message.type)) return;
    if (typeof message.id !== "number") return;
    const { type, id, options, mediation, kind } = message;
    if (type === "abort") {
      waiting.delete(id);
      endUI(id);
      background().postMessage({ type, id });
      return;
    }
    const request = { type, id, options, mediation, kind };
    if (type === "create" || type === "get") request.seen = seen(type);
    if (size(request) > LIMIT) {
      toPage({ type: "error", id, name: "NotSupportedError", message: "The request is larger than passkeyd accepts (1 MiB)." });
      return;
    }
    waiting.add(id);
    background().postMessage(request);
  }

  function fromBackground(message) {
    if (message.type === "suggest" && !waiting.has(message.id)) {
      choose(message.prompt, null);  // a request this page already gave up
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
      case "suggest":
        suggestion = message;
    }
  }

  const choose = (prompt, index) => background().postMessage({ type: "choice", prompt, index });

  // -- conditional mediation's suggestions ------------------------------------------------

  let ui = null;           // {host, id, prompt, entries, selected, buttons, field, openedAt, pick}
  let suggestion = null;   // the pending `suggest` of this frame

  // One size whatever the number of accounts: the list scrolls inside it.
  const STYLE = `
    :host { all: initial; }
    .dropdown { position: fixed; z-index: 2147483647; background: #fff; color: #111; border: 1px solid #999;
      border-radius: 4px; font: 14px system-ui, sans-serif; width: 260px; height: 132px; overflow-y: auto;
      padding: 4px 0; box-sizing: border-box; }
    button { display: block; width: 100%; text-align: left; border: 0; background: none; padding: 6px 10px;
      font: inherit; color: inherit; cursor: pointer; }
    button[aria-selected="true"] { background: #dbe7ff; }
    .name { display: block; color: #555; font-size: 12px; }`;

  const element = (tag, attributes, ...children) => {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attributes || {})) node.setAttribute(key, value);
    for (const child of children) node.append(child);
    return node;
  };

  const closeUI = () => {
    if (ui) ui.host.remove();
    ui = null;
  };
  const endUI = (id) => {
    if (ui && ui.id === id) closeUI();
    if (suggestion && suggestion.id === id) suggestion = null;
  };

  const webauthnField = (node) => node instanceof HTMLElement && (node.localName === "input" || node.localName === "textarea")
    && (node.getAttribute("autocomplete") || "").toLowerCase().split(/\s+/).includes("webauthn");

  /** Whether the list is really on screen: page CSS may make the shadow host transparent,
   *  invisible, filtered, or cover it; the browser's own answers here cannot be faked by it. */
  const visible = () => {
    if (!ui) return false;
    for (let node = ui.host; node; node = node.parentElement) {
      const style = getComputedStyle(node);
      if (style.visibility !== "visible" || Number(style.opacity) < 1 || style.filter !== "none"
        || (style.clipPath && style.clipPath !== "none") || style.display === "none"
        || (style.mixBlendMode && style.mixBlendMode !== "normal")) return false;
    }
    const box = ui.dropdown.getBoundingClientRect();
    if (box.width < 100 || box.height < 50) return false;
    const x = box.left + box.width / 2, y = box.top + box.height / 2;
    if (x < 0 || y < 0 || x > innerWidth || y > innerHeight) return false;
    return document.elementFromPoint(x, y) === ui.host;
  };

  /** Opens the list under `field`: only for the person's own input on it. */
  function showSuggestions(field) {
    if (!suggestion || ui) return;
    if (navigator.userActivation && !navigator.userActivation.isActive) return;
    const current = suggestion;
    const pick = (index) => {
      if (!ui || suggestion !== current || performance.now() - ui.openedAt < GUARD_MS || !visible()) return;
      suggestion = null;
      closeUI();
      choose(current.prompt, index);
    };
    const buttons = current.entries.map((entry, index) => {
      const button = element("button", { role: "option", "aria-selected": String(index === 0) },
        entry.label || entry.displayName || "Passkey", element("span", { class: "name" }, "passkey · passkeyd"));
      button.addEventListener("mousedown", (event) => event.preventDefault());  // keep the field's focus
      button.addEventListener("click", (event) => { if (event.isTrusted) pick(index); });
      return button;
    });
    const box = field.getBoundingClientRect();
    const dropdown = element("div", { class: "dropdown", role: "listbox", "aria-label": "Passkeys from passkeyd",
      style: `left:${Math.round(box.left)}px;top:${Math.round(box.bottom + 2)}px` }, ...buttons);
    const host = document.createElement("passkeyd-ui");
    const root = host.attachShadow({ mode: "closed" });
    root.append(element("style", {}, STYLE), dropdown);
    (document.body || document.documentElement).append(host);
    ui = { host, dropdown, id: current.id, prompt: current.prompt, entries: current.entries, selected: 0, buttons,
      field, pick, openedAt: performance.now() };
  }

  const select = (delta) => {
    ui.selected = (ui.selected + delta + ui.entries.length) % ui.entries.length;
    ui.buttons.forEach((button, index) => button.setAttribute("aria-selected", String(index === ui.selected)));
  };

  // A script's focus() or a synthetic event opens nothing: only trusted input on the field.
  document.addEventListener("pointerdown", (event) => {
    if (event.isTrusted && suggestion && webauthnField(event.target)) showSuggestions(event.target);
  }, true);
  document.addEventListener("focusout", (event) => {
    if (ui && event.target === ui.field) closeUI();  // the request stays pending
  }, true);
  document.addEventListener("keydown", (event) => {
    if (!event.isTrusted) return;
    if (!ui) {
      if (event.key === "ArrowDown" && suggestion && webauthnField(event.target) && event.target === document.activeElement) {
        showSuggestions(event.target);
        if (ui) event.preventDefault();
      }
      return;
    }
    if (event.target !== ui.field) return;
    if (event.key === "ArrowDown") select(1);
    else if (event.key === "ArrowUp") select(-1);
    else if (event.key === "Enter") ui.pick(ui.selected);
    else if (event.key === "Escape") closeUI();
    else return;
    event.preventDefault();
    event.stopImmediatePropagation();
  }, true);
})();
