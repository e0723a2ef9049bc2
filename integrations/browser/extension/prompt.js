// passkeyd's approval window (an extension page in a window of its own, opened by background.js).
//
// The person's questions for one request live here, where no web page can style, overlay,
// script or read them (issue 40 item 4): the modal account chooser (CTAP 2.1 §6.2.2 step 12's
// "select a credential"), the consent question naming the site and the account (WebAuthn L3
// §5.1.3 step 20, §5.1.4.1 step 18), the authenticator's PIN (CTAP 2.1 §6.5.5.7), and "Confirm on
// passkeyd…" while the daemon waits for the person's presence. Input that arrives in the first
// half second after a question appears is ignored: a key or click meant for the page the window
// opened over must not answer it. Escape, Cancel and closing the window refuse (NotAllowedError).
"use strict";
const api = globalThis.browser ?? globalThis.chrome;
const GUARD_MS = 500;
const main = document.getElementById("main");
const port = api.runtime.connect({ name: `passkeyd-prompt:${location.hash.slice(1)}` });
let shownAt = 0;
let current = null;       // the question on screen
let onKey = null;         // its key handler
let pinAsked = false;     // a PIN was given for this request: a new PIN question means it was wrong

const element = (tag, attributes, ...children) => {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attributes || {})) node.setAttribute(key, value);
  for (const child of children) node.append(child);
  return node;
};
const ready = () => performance.now() - shownAt >= GUARD_MS;
const answer = (members) => port.postMessage({ type: "answer", prompt: current.prompt, ...members });
const cancel = () => port.postMessage({ type: "cancel" });
const button = (label, action, primary = false) => {
  const node = element("button", primary ? { class: "primary" } : {}, label);
  node.addEventListener("click", (event) => { if (event.isTrusted && ready()) action(); });
  return node;
};
const where = (question) => {
  const site = element("span", { class: "site" }, question.site);
  return question.topSite && question.topSite !== question.site
    ? [site, ` (in a frame of ${question.topSite})`] : [site];
};

function show(question) {
  current = question;
  shownAt = performance.now();
  main.replaceChildren();
  onKey = null;
  document.title = "passkeyd";
  switch (question.type) {
    case "choose": return chooser(question);
    case "confirm": return consent(question);
    case "pin": return pin(question);
    default: return status(question);
  }
}

function chooser(question) {
  const entries = Array.isArray(question.entries) ? question.entries : [];
  let selected = 0;
  const items = entries.map((entry, index) => {
    const item = element("li", { role: "option", "aria-selected": String(index === 0) },
      entry.label || entry.displayName || "Passkey",
      element("span", { class: "name" }, entry.displayName && entry.displayName !== entry.label ? entry.displayName : ""));
    item.addEventListener("click", (event) => { if (event.isTrusted && ready()) answer({ index }); });
    return item;
  });
  const select = (delta) => {
    selected = (selected + delta + items.length) % items.length;
    items.forEach((item, index) => item.setAttribute("aria-selected", String(index === selected)));
  };
  document.title = "passkeyd: choose a passkey";
  main.append(element("h1", {}, "Choose a passkey for ", ...where(question)),
    element("ul", { role: "listbox", "aria-label": "Passkeys" }, ...items),
    element("div", { class: "actions" }, button("Cancel", cancel)));
  onKey = (key) => {
    if (key === "ArrowDown") select(1);
    else if (key === "ArrowUp") select(-1);
    else if (key === "Enter") answer({ index: selected });
    else return false;
    return true;
  };
}

function consent(question) {
  const creating = question.ceremony === "create";
  const account = question.account ? [" as ", element("span", { class: "site" }, question.account)] : [];
  const heading = creating
    ? element("h1", {}, "Create a passkey for ", element("span", { class: "site" }, question.account || "this account"),
      " on ", ...where(question), "?")
    : element("h1", {}, "Sign in to ", ...where(question), ...account, "?");
  document.title = creating ? "passkeyd: create a passkey?" : "passkeyd: sign in?";
  const approve = button(creating ? "Create" : "Sign in", () => answer({ index: 0 }), true);
  main.append(heading, element("p", { class: "note" }, `Asked by ${question.site}. passkeyd signs nothing until you choose.`),
    element("div", { class: "actions" }, button("Cancel", cancel), approve));
  onKey = (key) => {
    if (key !== "Enter") return false;
    answer({ index: 0 });
    return true;
  };
  approve.focus();
}

function pin(question) {
  const wrong = pinAsked;
  const field = element("input", { type: "password", autocomplete: "off", "aria-label": "PIN" });
  const submit = () => { pinAsked = true; answer({ pin: field.value }); };
  const retries = Number.isInteger(question.retriesLeft)
    ? `${question.retriesLeft} ${question.retriesLeft === 1 ? "try" : "tries"} left before the authenticator blocks its PIN.` : "";
  document.title = "passkeyd: PIN";
  main.append(element("h1", {}, "Enter your authenticator's PIN to continue on ", ...where(question)),
    element("p", { class: "note wrong" }, wrong ? "That PIN was wrong." : ""), field,
    element("p", { class: "note retries" }, retries),
    element("div", { class: "actions" }, button("Cancel", cancel), button("OK", submit, true)));
  onKey = (key) => {
    if (key !== "Enter") return false;
    submit();
    return true;
  };
  field.focus();
}

function status(question) {
  const waiting = question.status === "upNeeded";
  document.title = waiting ? "passkeyd: confirm on passkeyd" : "passkeyd";
  main.append(element("h1", {}, waiting ? "Confirm on passkeyd…" : "Working…"),
    element("p", { class: "note" }, waiting
      ? "passkeyd asks for your presence (its own prompt or notification)."
      : "passkeyd is working on the request from ", ...(waiting ? [] : where(question))),
    element("div", { class: "actions" }, button("Cancel", cancel)));
}

document.addEventListener("keydown", (event) => {
  if (!event.isTrusted || !current) return;
  if (event.key === "Escape") {
    event.preventDefault();
    cancel();
    return;
  }
  if (!ready() || !onKey) return;
  if (onKey(event.key)) event.preventDefault();
}, true);

port.onMessage.addListener((message) => {
  if (message && message.type === "show" && message.question) show(message.question);
});
port.onDisconnect.addListener(() => window.close());
