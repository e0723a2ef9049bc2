// The extension's one setting: fall back to the browser's own WebAuthn when the host or
// passkeyd cannot be reached (an `error` with `unavailable: true`). Off by default, so a test
// never passes by reaching another authenticator.
"use strict";
const api = globalThis.browser ?? globalThis.chrome;
const box = document.getElementById("fallback");
api.storage.local.get({ fallback: false }).then(({ fallback }) => { box.checked = fallback; });
box.addEventListener("change", () => {
  api.storage.local.set({ fallback: box.checked }).then(() => {
    document.getElementById("status").textContent = box.checked
      ? "The browser's own WebAuthn answers when passkeyd is unavailable."
      : "Pages get an error when passkeyd is unavailable.";
  });
});
