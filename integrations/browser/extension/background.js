// passkeyd's background script (Chromium: service worker; Firefox: background script).
//
// Holds the one native-messaging port to the host (`dev.passkeyd.host`, docs/browser-protocol.md)
// and one runtime port per frame that asked for something. It is the privileged side of the
// browser door: everything a page could lie about is decided here or in the bridge's isolated
// world, never in the page.
//  - The origin and top origin come from the browser's MessageSender, never from the frame; an
//    opaque origin (a sandboxed document or frame) is refused, never replaced by its URL
//    (WebAuthn L3 §5.1.3 step 7 / §5.1.4.1: the caller's origin is the settings object's origin).
//  - A frame the permissions policy does not allow, and a cross-origin create without transient
//    activation, are refused (§5.1.3 step 2, §5.1.4.1 step 2) from what the bridge read in its
//    isolated world; Firefox exposes no policy to it, so cross-origin frames are refused there.
//  - The person's choices and consent are asked in a window of this extension (prompt.html),
//    which no page can style, overlay, script or read.
//  - One pending ceremony per frame (a new one aborts the old), and no message over the host's
//    1 MiB limit reaches the host.
"use strict";
const api = globalThis.browser ?? globalThis.chrome;
const HOST = "dev.passkeyd.host";
const FORWARDED = { create: ["options"], get: ["options", "mediation"], capabilities: [], signal: ["kind", "options"] };
/** The host reads no message over 1 MiB (NativeMessaging.inboundLimit); bigger is refused here. */
const MESSAGE_LIMIT = 1024 * 1024;
/** Requests other than ceremonies (capabilities, signals) a frame may have pending at once. */
const OTHER_LIMIT = 8;
/** How long the window waits for the person: the request's timeout within Chromium's bounds. */
const WINDOW_TIMEOUT = { least: 10_000, most: 600_000, usual: 300_000 };
const UNAVAILABLE = "passkeyd is not available. Ask the extension's options page for the reason.";

let native = null;              // the port to the host, opened on first use
let nextFrame = 0;
const requests = new Map();     // host request id → request (see `open` below)
const prompts = new Map();      // host question id → {request, kind}
const windows = new Map();      // window token → request whose window it is

/** An origin as browsers serialise it (scheme://host[:port]), or null when opaque or not web. */
const originOf = (url) => {
  try {
    const parsed = new URL(url);
    return parsed.protocol === "https:" || parsed.protocol === "http:" ? parsed.origin : null;
  } catch {
    return null;
  }
};

/** The calling frame's origin and its tab's top-level origin, from the browser's sender; null
 *  when the frame's origin is opaque ("null": a sandboxed document) or not http(s). sender.url
 *  is the document's URL, which a sandboxed document keeps though its origin is opaque: it is
 *  used only where the browser reports no origin at all and the bridge saw a non-opaque one. */
const originsOf = (sender, opaqueInFrame) => {
  let origin;
  if (typeof sender.origin === "string") origin = sender.origin === "null" ? null : originOf(sender.origin);
  else origin = opaqueInFrame === false ? originOf(sender.url) : null;
  const topOrigin = sender.frameId === 0 ? origin : originOf(sender.tab && sender.tab.url);
  return origin && topOrigin ? { origin, topOrigin } : null;
};

const settings = () => api.storage.local.get({ fallback: false }).catch(() => ({ fallback: false }));

/** The detail behind "passkeyd is not available" (it may name the socket's path, so the user):
 *  the extension's console and options page get it, pages never do. */
const noteProblem = (detail) => {
  console.warn(`passkeyd: ${detail}`);
  api.storage.local.set({ lastProblem: { detail, at: Date.now() } }).catch(() => {});
};

const byteLength = (value) => {
  try {
    return new TextEncoder().encode(JSON.stringify(value)).length;
  } catch {
    return Infinity;
  }
};

// -- answers to frames -------------------------------------------------------------------

/** Ends `request` for the page with `message` (result or error) and closes its window. */
const finish = async (request, message) => {
  if (!requests.has(request.hostId)) return;
  requests.delete(request.hostId);
  request.frameState.pending.delete(request.hostId);
  if (request.frameState.ceremony === request.hostId) request.frameState.ceremony = null;
  for (const [id, prompt] of prompts) if (prompt.request === request) prompts.delete(id);
  closeWindow(request);
  let { id: _, detail, ...members } = message;
  if (members.type === "error" && members.unavailable) {
    noteProblem(detail || members.message);
    if ((await settings()).fallback) {
      post(request.frame, { type: "fallback", id: request.local });
      return;
    }
    members = { ...members, message: UNAVAILABLE };
  } else if (detail) {
    console.warn(`passkeyd: ${detail}`);
  }
  post(request.frame, { ...members, id: request.local });
};

const post = (frame, message) => {
  try {
    frame.postMessage(message);
  } catch {
    // The frame went away: nothing to tell.
  }
};

/** Ends `request` at once for the page (the host's later answer is dropped) and aborts it there. */
const refuse = (request, name, message) => {
  if (!requests.has(request.hostId)) return;
  if (native) toHost({ type: "abort", target: request.hostId });
  finish(request, { type: "error", name, message });
};

// -- the host ----------------------------------------------------------------------------

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
      finish(request, message);
      return;
    }
    case "suggest": {
      // Conditional mediation's suggestions stay under the page's field (bridge.js); a pick
      // still meets the person's consent in this extension's window.
      const request = requests.get(message.request);
      if (!request) return;
      prompts.set(message.id, { request, kind: "suggest" });
      post(request.frame, { type: "suggest", prompt: message.id, id: request.local, rpId: message.rpId,
        entries: Array.isArray(message.entries) ? message.entries : [] });
      return;
    }
    case "choose":
    case "confirm":
    case "pin": {
      const request = requests.get(message.request);
      if (!request) return;
      prompts.set(message.id, { request, kind: message.type });
      ask(request, { ...message, prompt: message.id });
      return;
    }
    case "status": {
      const request = requests.get(message.request);
      if (!request) return;
      // Waiting for passkeyd's own prompt (a touch, a notification): the window says so.
      if (message.status === "upNeeded") ask(request, { type: "status", status: "upNeeded" });
      else if (request.window) ask(request, { type: "status", status: "processing" });
    }
  }
};

/** Every pending request ends when the host goes: passkeyd's host is not there to answer. */
const hostGone = (reason) => {
  native = null;
  noteProblem(`the browser host is not available (${reason}): run \`passkeyctl browser install\` and start passkeyd.`);
  for (const request of [...requests.values()]) {
    finish(request, { type: "error", name: "NotAllowedError", unavailable: true, message: UNAVAILABLE,
      detail: `the browser host is not available (${reason})` });
  }
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

const toHost = (message) => {
  try {
    host().postMessage(message);
    return true;
  } catch (error) {
    hostGone(String(error && error.message || error));
    return false;
  }
};

// -- the window the person answers in -----------------------------------------------------

const PROMPT_PAGE = api.runtime.getURL("prompt.html");

const randomToken = () => {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
};

/** Shows `question` in the request's window, opening it first. */
function ask(request, question) {
  const shown = { ...question, site: request.origin, topSite: request.topOrigin, ceremony: request.type };
  if (!request.window) {
    const token = randomToken();
    request.window = { token, port: null, queue: [], id: null, timer: null };
    windows.set(token, request);
    api.windows.create({ url: `${PROMPT_PAGE}#${token}`, type: "popup", width: 460, height: 380, focused: true })
      .then((created) => {
        if (!request.window || request.window.token !== token) {
          api.windows.remove(created.id).catch(() => {});
          return;
        }
        request.window.id = created.id;
      }, (error) => refuse(request, "NotAllowedError", `passkeyd could not open its window: ${error.message || error}`));
    const { least, most, usual } = WINDOW_TIMEOUT;
    const wanted = Number.isFinite(request.timeout) ? request.timeout : usual;
    request.window.timer = setTimeout(() => refuse(request, "NotAllowedError",
      "The operation either timed out or was not allowed: no one answered passkeyd's window."),
      Math.min(most, Math.max(least, wanted)));
  }
  request.window.current = shown;
  if (request.window.port) post(request.window.port, { type: "show", question: shown });
}

function closeWindow(request) {
  const shown = request.window;
  if (!shown) return;
  request.window = null;
  windows.delete(shown.token);
  clearTimeout(shown.timer);
  if (shown.port) {
    try { shown.port.disconnect(); } catch { /* already gone */ }
  }
  if (shown.id !== null) api.windows.remove(shown.id).catch(() => {});
}

// The person closed the window: the ceremony ends as a refusal.
api.windows.onRemoved.addListener((windowId) => {
  for (const request of windows.values()) {
    if (request.window && request.window.id === windowId) {
      request.window.id = null;
      refuse(request, "NotAllowedError", "The operation either timed out or was not allowed: passkeyd's window was closed.");
    }
  }
});

/** The window's page: only this extension's prompt.html, holding its request's token. */
function promptConnected(port) {
  const sender = port.sender || {};
  const token = port.name.slice("passkeyd-prompt:".length);
  const request = windows.get(token);
  if (sender.id !== api.runtime.id || !sender.url || sender.url.split("#")[0] !== PROMPT_PAGE || !request) {
    port.disconnect();
    return;
  }
  request.window.port = port;
  if (request.window.current) post(port, { type: "show", question: request.window.current });
  port.onMessage.addListener((message) => {
    if (message === null || typeof message !== "object" || request.window?.port !== port) return;
    if (message.type === "cancel") {
      refuse(request, "NotAllowedError", "The operation either timed out or was not allowed: the person cancelled.");
      return;
    }
    if (message.type !== "answer") return;
    const prompt = prompts.get(message.prompt);
    if (!prompt || prompt.request !== request) return;
    prompts.delete(message.prompt);
    if (prompt.kind === "pin") {
      toHost({ type: "choice", target: message.prompt, pin: typeof message.pin === "string" ? message.pin : null });
    } else {
      toHost({ type: "choice", target: message.prompt, index: Number.isInteger(message.index) ? message.index : null });
    }
    if (request.window) {
      request.window.current = { type: "status", status: "processing", site: request.origin, topSite: request.topOrigin,
        ceremony: request.type };
      post(port, { type: "show", question: request.window.current });
    }
  });
  port.onDisconnect.addListener(() => {
    if (request.window && request.window.port === port) request.window.port = null;
  });
}

// -- frames ------------------------------------------------------------------------------

/** Why a ceremony from this frame is refused before it reaches the host, or null. `seen` is what
 *  the bridge read in the frame's isolated world, where page scripts cannot reach. */
function refusal(type, frameState, seen) {
  if (type !== "create" && type !== "get") return null;
  const feature = type === "create" ? "publickey-credentials-create" : "publickey-credentials-get";
  const crossOrigin = frameState.origins.origin !== frameState.origins.topOrigin || seen.sameOriginWithAncestors === false;
  if (seen.policy === false) {
    return ["NotAllowedError", `The '${feature}' feature is not enabled in this document (permissions policy).`];
  }
  if (crossOrigin && seen.policy !== true) {
    // Firefox gives an extension no view of the permissions policy: a cross-origin frame cannot
    // show it was allowed, so it is refused (docs/browser-protocol.md, "What is checked where").
    return ["NotAllowedError", `passkeyd cannot tell whether '${feature}' is allowed in this cross-origin frame, so it refuses it.`];
  }
  if (type === "create" && crossOrigin && seen.activation !== true) {
    return ["NotAllowedError", "A cross-origin frame may create a credential only during a user gesture (transient activation)."];
  }
  return null;
}

api.runtime.onConnect.addListener((frame) => {
  if (!frame.sender || frame.sender.id !== api.runtime.id) return;
  if (frame.name.startsWith("passkeyd-prompt:")) {
    promptConnected(frame);
    return;
  }
  if (frame.name !== "passkeyd") return;
  // A content script's port: its frame's document. The origins are read at the first request,
  // with the bridge's word on whether the document's origin is opaque.
  const frameState = { serial: ++nextFrame, origins: undefined, pending: new Set(), ceremony: null };

  frame.onMessage.addListener((message) => {
    if (message === null || typeof message !== "object") return;
    const hostId = `${frameState.serial}:${message.id}`;
    if (message.type === "abort") {
      const request = requests.get(hostId);
      if (request) refuse(request, "AbortError", "The request was aborted.");
      return;
    }
    if (message.type === "choice") {
      // A suggestion picked under the page's field: only the frame it was shown in may answer.
      const prompt = prompts.get(message.prompt);
      if (!prompt || prompt.kind !== "suggest" || prompt.request.frame !== frame) return;
      prompts.delete(message.prompt);
      toHost({ type: "choice", target: message.prompt, index: Number.isInteger(message.index) ? message.index : null });
      return;
    }
    const members = FORWARDED[message.type];
    if (!members || typeof message.id !== "number") return;
    const seen = message.seen && typeof message.seen === "object" ? message.seen : {};
    if (frameState.origins === undefined) frameState.origins = originsOf(frame.sender, seen.opaque);
    const error = (name, text) => post(frame, { type: "error", id: message.id, name, message: text });
    if (!frameState.origins || seen.opaque === true) {
      error("NotAllowedError", "The current origin is an opaque origin (a sandboxed document) or not http/https: passkeyd serves no credentials to it.");
      return;
    }
    const refused = refusal(message.type, frameState, seen);
    if (refused) {
      error(...refused);
      return;
    }
    const request = { type: message.type, id: hostId, ...frameState.origins };
    for (const member of members) if (message[member] !== undefined) request[member] = message[member];
    if (byteLength(request) > MESSAGE_LIMIT) {
      error("NotSupportedError", "The request is larger than passkeyd accepts (1 MiB).");
      return;
    }
    const ceremony = message.type === "create" || message.type === "get";
    if (ceremony && frameState.ceremony) {
      // One ceremony per frame, as browsers keep one: the new request replaces the old one.
      const previous = requests.get(frameState.ceremony);
      if (previous) refuse(previous, "AbortError", "A newer request from this document replaced this one.");
    } else if (!ceremony && frameState.pending.size - (frameState.ceremony ? 1 : 0) >= OTHER_LIMIT) {
      error("NotAllowedError", "Too many requests from this document are pending.");
      return;
    }
    const timeout = message.options && typeof message.options.timeout === "number" ? message.options.timeout : undefined;
    requests.set(hostId, { hostId, frame, frameState, local: message.id, type: message.type, timeout,
      origin: frameState.origins.origin, topOrigin: frameState.origins.topOrigin, window: null });
    frameState.pending.add(hostId);
    if (ceremony) frameState.ceremony = hostId;
    toHost(request);
  });

  frame.onDisconnect.addListener(() => {
    // The frame navigated away or closed: its ceremonies end (the host answers AbortError, dropped).
    for (const hostId of [...frameState.pending]) {
      const request = requests.get(hostId);
      if (request) refuse(request, "AbortError", "The document went away.");
    }
  });
});
