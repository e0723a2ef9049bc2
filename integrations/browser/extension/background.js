// passkeyd's background script (Chromium: service worker; Firefox: background script).
//
// Holds the one native-messaging port to the host (`dev.passkeyd.host`, protocol v1 in
// docs/integrations.md) and one runtime port per frame that asked for something. It is the
// only place a request gets its `origin` and `topOrigin`, and it takes them from the browser's
// MessageSender (the frame's origin, the tab's URL), never from what the frame sent: a page
// can act for its own origin and no other (WebAuthn L3 §13.4.9, the origin is the client's).
"use strict";
const api = globalThis.browser ?? globalThis.chrome;
const HOST = "dev.passkeyd.host";
const FORWARDED = { create: ["options"], get: ["options", "mediation"], capabilities: [], signal: ["kind", "options"] };

let native = null;              // the port to the host, opened on first use
let nextFrame = 0;
const requests = new Map();     // host request id → {frame, local}
const prompts = new Map();      // host choose/suggest/pin id → {frame, kind} it was shown in

/** An origin as browsers serialise it (scheme://host[:port]), or null when opaque or not web. */
const originOf = (url) => {
  try {
    const parsed = new URL(url);
    return parsed.protocol === "https:" || parsed.protocol === "http:" ? parsed.origin : null;
  } catch {
    return null;
  }
};

/** The calling frame's origin and its tab's top-level origin, from the browser's sender. */
const originsOf = (sender) => {
  const origin = sender.origin && sender.origin !== "null" ? originOf(sender.origin) : originOf(sender.url);
  const topOrigin = sender.frameId === 0 ? origin : originOf(sender.tab && sender.tab.url);
  return origin && topOrigin ? { origin, topOrigin } : null;
};

const settings = () => api.storage.local.get({ fallback: false }).catch(() => ({ fallback: false }));

const answer = async (request, message) => {
  const { frame, local } = request;
  if (message.type === "error" && message.unavailable && (await settings()).fallback) {
    frame.postMessage({ type: "fallback", id: local });
    return;
  }
  const { id: _, ...members } = message;
  frame.postMessage({ ...members, id: local });
};

const fromHost = (message) => {
  if (message === null || typeof message !== "object") return;
  switch (message.type) {
    case "result":
    case "error": {
      const request = requests.get(message.id);
      if (!request) {
        if (message.id == null) console.warn(`passkeyd host: ${message.name}: ${message.message}`);
        return;
      }
      requests.delete(message.id);
      answer(request, message);
      return;
    }
    case "choose":
    case "suggest":
    case "pin": {
      const request = requests.get(message.request);
      if (!request) return;
      prompts.set(message.id, { frame: request.frame, kind: message.type });
      const shown = { type: message.type, prompt: message.id, id: request.local, rpId: message.rpId };
      if (message.type === "pin") shown.retriesLeft = Number.isInteger(message.retriesLeft) ? message.retriesLeft : null;
      else shown.entries = message.entries;
      request.frame.postMessage(shown);
      return;
    }
    case "status": {
      const request = requests.get(message.request);
      if (request) request.frame.postMessage({ type: "status", id: request.local, status: message.status });
    }
  }
};

/** Every pending request ends when the host goes: passkeyd's host is not there to answer. */
const hostGone = (reason) => {
  native = null;
  const message = {
    type: "error", name: "NotAllowedError", unavailable: true,
    message: `passkeyd's browser host is not available (${reason}): run \`passkeyctl browser install\` and start passkeyd.`,
  };
  for (const [id, request] of requests) answer(request, { ...message, id });
  requests.clear();
  prompts.clear();
};

const host = () => {
  if (native) return native;
  const port = api.runtime.connectNative(HOST);
  port.onMessage.addListener(fromHost);
  port.onDisconnect.addListener(() => {
    const error = (api.runtime.lastError && api.runtime.lastError.message) || (port.error && port.error.message);
    if (native === port) hostGone(error || "it exited");
  });
  native = port;
  return port;
};

const post = (message) => {
  try {
    host().postMessage(message);
    return true;
  } catch (error) {
    hostGone(String(error && error.message || error));
    return false;
  }
};

api.runtime.onConnect.addListener((frame) => {
  if (frame.name !== "passkeyd" || !frame.sender || frame.sender.id !== api.runtime.id) return;
  const serial = ++nextFrame;
  const origins = originsOf(frame.sender);
  const mine = new Set();  // host ids of this frame's pending requests

  frame.onMessage.addListener((message) => {
    if (message === null || typeof message !== "object") return;
    const hostId = `${serial}:${message.id}`;
    if (message.type === "abort") {
      if (requests.has(hostId)) post({ type: "abort", target: hostId });
      return;
    }
    if (message.type === "choice") {
      // Only the frame a prompt was shown in may answer it, and only with the prompt's kind of answer.
      const prompt = prompts.get(message.prompt);
      if (!prompt || prompt.frame !== frame) return;
      prompts.delete(message.prompt);
      post(prompt.kind === "pin"
        ? { type: "choice", target: message.prompt, pin: typeof message.pin === "string" ? message.pin : null }
        : { type: "choice", target: message.prompt, index: Number.isInteger(message.index) ? message.index : null });
      return;
    }
    const members = FORWARDED[message.type];
    if (!members || typeof message.id !== "number") return;
    if (!origins) {
      frame.postMessage({ type: "error", id: message.id, name: "SecurityError",
        message: "This frame has no web origin the browser reports (opaque or not http/https)." });
      return;
    }
    const request = { type: message.type, id: hostId, ...origins };
    for (const member of members) if (message[member] !== undefined) request[member] = message[member];
    requests.set(hostId, { frame, local: message.id });
    mine.add(hostId);
    post(request);
  });

  frame.onDisconnect.addListener(() => {
    // The frame navigated away or closed: its ceremonies end (the host answers AbortError, dropped).
    for (const hostId of mine) {
      if (requests.delete(hostId) && native) post({ type: "abort", target: hostId });
    }
    for (const [prompt, owner] of prompts) if (owner.frame === frame) prompts.delete(prompt);
  });
});
