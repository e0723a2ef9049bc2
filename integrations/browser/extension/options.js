// The extension's options page: which mode the native host serves in (a person approves each
// ceremony in the extension's window, or unattended automation approves them all, from
// `passkeyctl browser install --automation`), the last reason passkeyd could not be reached (the
// detail pages never see: it may name the socket's path, and so the user), and the one setting:
// fall back to the browser's own WebAuthn when the host or passkeyd cannot be reached (an
// `error` with `unavailable: true`). Off by default, so a test never passes by reaching another
// authenticator.
"use strict";
const api = globalThis.browser ?? globalThis.chrome;
const HOST = "dev.passkeyd.host";
const box = document.getElementById("fallback");
const say = (id, text, className = "") => {
  const node = document.getElementById(id);
  node.textContent = text;
  node.className = className;
};

api.storage.local.get({ fallback: false }).then(({ fallback }) => { box.checked = fallback; });
box.addEventListener("change", () => {
  api.storage.local.set({ fallback: box.checked }).then(() => {
    say("status", box.checked
      ? "The browser's own WebAuthn answers when passkeyd is unavailable."
      : "Pages get an error when passkeyd is unavailable.");
  });
});

// A ping of its own (a host process for this page alone): the host says its version, whether
// passkeyd answers, and its mode.
api.runtime.sendNativeMessage(HOST, { type: "ping", id: "options" }).then((reply) => {
  if (!reply || reply.type !== "result") throw new Error((reply && reply.message) || "no answer");
  say("host", `passkeyd's browser host ${reply.version}: passkeyd ${reply.daemon ? "answers" : "does not answer"}.`);
  if (reply.automation === true) {
    say("mode", "Mode: unattended automation — every page's sign-ins and registrations are approved without "
      + "asking anyone (passkeyctl browser install --automation). For tests and CI only; run "
      + "`passkeyctl browser install` again without --automation for everyday browsing.", "automation");
  } else {
    say("mode", "Mode: you approve each sign-in and registration in passkeyd's own window, which names the site and the account.");
  }
}, (error) => {
  say("host", `passkeyd's browser host is not available: ${error && error.message || error}. `
    + "Run `passkeyctl browser install` and start passkeyd.");
});

api.storage.local.get({ lastProblem: null }).then(({ lastProblem }) => {
  if (lastProblem) say("problem", `Last problem (${new Date(lastProblem.at).toLocaleString()}): ${lastProblem.detail}`);
});
