// passkeyd's page-world script (content script, world MAIN, document_start, every frame).
//
// Replaces navigator.credentials.create/get for `publicKey` and the PublicKeyCredential
// statics with versions that hand the ceremony to passkeyd, and makes the objects it returns
// behave as the browser's own (WebAuthn L3 §5.1, §5.2): they are instances of the real
// PublicKeyCredential / AuthenticatorAttestationResponse / AuthenticatorAssertionResponse,
// whose accessors are wrapped to answer for them and forward to the native code otherwise.
//
// This script decides nothing: it converts the page's options to their JSON form (§5.1.10),
// posts them to bridge.js (the isolated world) on this window, and turns the answer back into
// objects or a DOMException. The origin is never sent from here: the background script takes
// it from the browser's message sender.
(() => {
  "use strict";
  if (!window.isSecureContext || !navigator.credentials) return;  // WebAuthn L3 §5: secure contexts only
  const TAG = "passkeyd";
  const { stringify, parse } = JSON;
  const postToSelf = window.postMessage.bind(window);
  const listen = EventTarget.prototype.addEventListener;
  const unlisten = EventTarget.prototype.removeEventListener;
  const nativeCreate = CredentialsContainer.prototype.create;
  const nativeGet = CredentialsContainer.prototype.get;

  // -- base64url (RFC 4648 §5), the JSON form's encoding of every buffer -----------------

  const toBase64url = (buffer) => {
    const bytes = buffer instanceof ArrayBuffer ? new Uint8Array(buffer)
      : new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength);
    let binary = "";
    for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
    return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  };
  const fromBase64url = (text, what) => {
    if (typeof text !== "string" || !/^[A-Za-z0-9_-]*$/.test(text) || text.length % 4 === 1) {
      throw new DOMException(`${what} is not base64url.`, "EncodingError");
    }
    const binary = atob(text.replace(/-/g, "+").replace(/_/g, "/"));
    const bytes = new Uint8Array(binary.length);
    for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
    return bytes.buffer;
  };
  const isBuffer = (value) => value instanceof ArrayBuffer || ArrayBuffer.isView(value)
    || Object.prototype.toString.call(value) === "[object ArrayBuffer]";

  /** The JSON form of a dictionary: every BufferSource becomes base64url (WebAuthn L3 §5.1.10). */
  const toJSONForm = (value) => {
    if (value === null || typeof value !== "object") return value;
    if (isBuffer(value)) return toBase64url(value);
    if (Array.isArray(value)) return value.map(toJSONForm);
    const out = {};
    for (const key of Object.keys(value)) {
      if (value[key] !== undefined && key !== "signal") out[key] = toJSONForm(value[key]);
    }
    return out;
  };

  const required = (dictionary, members, where) => {
    for (const member of members) {
      if (dictionary == null || dictionary[member] === undefined) {
        throw new TypeError(`${where} is missing its required member '${member}'.`);
      }
    }
  };
  const requireBuffer = (value, where) => {
    if (!isBuffer(value)) throw new TypeError(`${where} is not a BufferSource.`);
  };

  // WebIDL conversion of the options (WebAuthn L3 §5.4, §5.5): required members are a TypeError.
  const creationOptionsJSON = (options) => {
    required(options, ["rp", "user", "challenge", "pubKeyCredParams"], "PublicKeyCredentialCreationOptions");
    required(options.user, ["id", "name", "displayName"], "PublicKeyCredentialUserEntity");
    required(options.rp, ["name"], "PublicKeyCredentialRpEntity");
    requireBuffer(options.challenge, "challenge");
    requireBuffer(options.user.id, "user.id");
    if (!Array.isArray(options.pubKeyCredParams)) throw new TypeError("pubKeyCredParams is not a sequence.");
    for (const descriptor of options.excludeCredentials || []) requireBuffer(descriptor.id, "excludeCredentials[].id");
    return toJSONForm(options);
  };
  const requestOptionsJSON = (options) => {
    required(options, ["challenge"], "PublicKeyCredentialRequestOptions");
    requireBuffer(options.challenge, "challenge");
    for (const descriptor of options.allowCredentials || []) requireBuffer(descriptor.id, "allowCredentials[].id");
    return toJSONForm(options);
  };

  // -- the objects a page gets back --------------------------------------------------------

  const ours = new WeakMap();  // credential or response object → its decoded data

  /** Wraps one accessor or method of a native prototype: ours answer, natives go through. */
  const answer = (proto, name, ourValue) => {
    if (!proto) return;
    const desc = Object.getOwnPropertyDescriptor(proto, name);
    if (desc && desc.get) {
      const native = desc.get;
      const get = { get [name]() { return ours.has(this) ? ourValue(ours.get(this)) : native.call(this); } };
      Object.defineProperty(proto, name, { ...desc, get: Object.getOwnPropertyDescriptor(get, name).get });
    } else {
      const native = desc && desc.value;
      const method = { [name](...args) {
        if (ours.has(this)) return ourValue(ours.get(this), ...args);
        if (native) return native.apply(this, args);
        throw new TypeError("Illegal invocation");
      } }[name];
      Object.defineProperty(proto, name, { value: method, writable: true, enumerable: true, configurable: true });
    }
  };

  /** A stand-in interface where the browser has none (WebAuthn disabled): illegal to construct. */
  const standIn = (name, parent) => {
    const cls = { [name]: class extends (parent || Object) { constructor() { throw new TypeError("Illegal constructor"); } } }[name];
    Object.defineProperty(window, name, { value: cls, writable: true, configurable: true, enumerable: false });
    return cls;
  };
  const Credential_ = window.Credential || standIn("Credential");
  const PKC = window.PublicKeyCredential || standIn("PublicKeyCredential", Credential_);
  const Response_ = window.AuthenticatorResponse || standIn("AuthenticatorResponse");
  const Attestation = window.AuthenticatorAttestationResponse || standIn("AuthenticatorAttestationResponse", Response_);
  const Assertion = window.AuthenticatorAssertionResponse || standIn("AuthenticatorAssertionResponse", Response_);

  answer(Credential_.prototype, "id", (d) => d.json.id);
  answer(Credential_.prototype, "type", (d) => d.json.type);
  answer(PKC.prototype, "rawId", (d) => d.rawId);
  answer(PKC.prototype, "response", (d) => d.response);
  answer(PKC.prototype, "authenticatorAttachment", (d) => d.json.authenticatorAttachment ?? null);
  answer(PKC.prototype, "getClientExtensionResults", (d) => extensionResults(d.json.clientExtensionResults || {}));
  answer(PKC.prototype, "toJSON", (d) => parse(stringify(d.json)));
  answer(Response_.prototype, "clientDataJSON", (d) => d.buffers.clientDataJSON);
  answer(Attestation.prototype, "attestationObject", (d) => d.buffers.attestationObject);
  answer(Attestation.prototype, "getTransports", (d) => [...(d.json.response.transports || [])]);
  answer(Attestation.prototype, "getAuthenticatorData", (d) => d.buffers.authenticatorData);
  answer(Attestation.prototype, "getPublicKey", (d) => d.buffers.publicKey ?? null);
  answer(Attestation.prototype, "getPublicKeyAlgorithm", (d) => d.json.response.publicKeyAlgorithm);
  answer(Assertion.prototype, "authenticatorData", (d) => d.buffers.authenticatorData);
  answer(Assertion.prototype, "signature", (d) => d.buffers.signature);
  answer(Assertion.prototype, "userHandle", (d) => d.buffers.userHandle ?? null);

  /** getClientExtensionResults(): the JSON form's base64url members back to ArrayBuffers (§5.1.10). */
  const extensionResults = (json) => {
    const results = parse(stringify(json));
    const decode = (holder, key) => {
      if (holder && typeof holder[key] === "string") holder[key] = fromBase64url(holder[key], key);
    };
    if (results.prf && results.prf.results) {
      decode(results.prf.results, "first");
      decode(results.prf.results, "second");
    }
    if (results.largeBlob) decode(results.largeBlob, "blob");
    return results;
  };

  /** A PublicKeyCredential from a RegistrationResponseJSON or AuthenticationResponseJSON. */
  const credentialFrom = (json, registration) => {
    const buffers = {};
    for (const [key, value] of Object.entries(json.response || {})) {
      if (typeof value === "string") buffers[key] = fromBase64url(value, `response.${key}`);
    }
    const response = Object.create((registration ? Attestation : Assertion).prototype);
    const credential = Object.create(PKC.prototype);
    const data = { json, buffers, response, rawId: fromBase64url(json.rawId, "rawId") };
    ours.set(response, data);
    ours.set(credential, data);
    return credential;
  };

  // -- the channel to bridge.js ------------------------------------------------------------

  let nextId = 0;
  const pending = new Map();  // local id → {resolve, reject, fallback}

  listen.call(window, "message", (event) => {
    if (event.source !== window || typeof event.data !== "string") return;
    let message;
    try { message = parse(event.data); } catch { return; }
    if (!message || message[TAG] !== "to-page") return;
    const request = pending.get(message.id);
    if (!request) return;
    pending.delete(message.id);
    request.done();
    if (message.type === "result") request.resolve(message);
    else if (message.type === "fallback") request.fallback();
    else request.reject(errorFrom(message));
  });

  const errorFrom = (message) => {
    if (message.name === "TypeError") return new TypeError(message.message);
    return new DOMException(message.message || "The operation failed.", message.name || "UnknownError");
  };

  /** Sends one request; settles with the host's answer, the signal's reason, or the fallback. */
  const call = (type, members, signal, fallback) => new Promise((resolve, reject) => {
    if (signal && signal.aborted) { reject(signal.reason); return; }
    const id = ++nextId;
    const onAbort = () => {
      if (!pending.delete(id)) return;
      postToSelf(stringify({ [TAG]: "to-bridge", type: "abort", id }), "*");
      reject(signal.reason);
    };
    const done = () => { if (signal) unlisten.call(signal, "abort", onAbort); };
    if (signal) listen.call(signal, "abort", onAbort);
    pending.set(id, {
      resolve, reject, done,
      fallback: () => fallback ? fallback().then(resolve, reject)
        : reject(new DOMException("passkeyd is not running.", "NotAllowedError")),
    });
    postToSelf(stringify({ [TAG]: "to-bridge", type, id, ...members }), "*");
  });

  // -- navigator.credentials ---------------------------------------------------------------

  const MEDIATIONS = ["silent", "optional", "conditional", "required", "immediate"];

  // WebAuthn L3 §5.1.3 step 2 / §5.1.4.1 step 2: a frame the permissions policy does not allow
  // (a cross-origin iframe without allow="publickey-credentials-…") gets NotAllowedError.
  // Where the browser exposes no policy (Firefox), the host still sees origin ≠ top origin.
  const policy = document.featurePolicy || document.permissionsPolicy;
  const allowedHere = (feature) => !policy || typeof policy.allowsFeature !== "function" || policy.allowsFeature(feature);
  const refusedByPolicy = (feature) => Promise.reject(new DOMException(
    `The '${feature}' feature is not enabled in this document (permissions policy).`, "NotAllowedError"));

  const create = function create(options) {
    if (options == null || options.publicKey === undefined) return nativeCreate.apply(this, arguments);
    const container = this, args = arguments;
    if (!allowedHere("publickey-credentials-create")) return refusedByPolicy("publickey-credentials-create");
    let json;
    try { json = creationOptionsJSON(options.publicKey); } catch (error) { return Promise.reject(error); }
    return call("create", { options: json }, options.signal, () => nativeCreate.apply(container, args))
      .then((reply) => reply.credential ? credentialFrom(reply.credential, true) : reply);
  };

  const get = function get(options) {
    if (options == null || options.publicKey === undefined) return nativeGet.apply(this, arguments);
    const container = this, args = arguments;
    const mediation = options.mediation === undefined ? "optional" : String(options.mediation);
    if (!MEDIATIONS.includes(mediation)) {
      return Promise.reject(new TypeError(`'${mediation}' is not a valid CredentialMediationRequirement.`));
    }
    if (!allowedHere("publickey-credentials-get")) return refusedByPolicy("publickey-credentials-get");
    let json;
    try { json = requestOptionsJSON(options.publicKey); } catch (error) { return Promise.reject(error); }
    return call("get", { options: json, mediation }, options.signal, () => nativeGet.apply(container, args))
      .then((reply) => reply.credential ? credentialFrom(reply.credential, false) : reply);
  };

  const replace = (holder, name, fn) => Object.defineProperty(holder, name, {
    value: fn, writable: true, enumerable: true, configurable: true,
  });
  replace(CredentialsContainer.prototype, "create", create);
  replace(CredentialsContainer.prototype, "get", get);

  // -- PublicKeyCredential statics (WebAuthn L3 §5.1.6-§5.1.12, §5.1.9 signals) -----------

  // With the fallback chosen and passkeyd unavailable, the browser's own answer stands.
  const nativeCapabilities = PKC.getClientCapabilities;
  const capabilities = () => call("capabilities", {}, null, nativeCapabilities && (() => nativeCapabilities.call(PKC)))
    .then((reply) => reply.capabilities || reply);

  replace(PKC, "getClientCapabilities", function getClientCapabilities() { return capabilities(); });
  replace(PKC, "isUserVerifyingPlatformAuthenticatorAvailable", function isUserVerifyingPlatformAuthenticatorAvailable() {
    return capabilities().then((c) => c.userVerifyingPlatformAuthenticator === true, () => false);
  });
  replace(PKC, "isConditionalMediationAvailable", function isConditionalMediationAvailable() {
    return capabilities().then((c) => c.conditionalGet === true, () => false);
  });

  const signal = (kind, name, members) => ({ [name](options) {
    try { required(options, members, `${name}'s options`); } catch (error) { return Promise.reject(error); }
    return call("signal", { kind, options: toJSONForm(options) }, null, null).then(() => undefined);
  } })[name];
  replace(PKC, "signalUnknownCredential", signal("unknownCredential", "signalUnknownCredential", ["rpId", "credentialId"]));
  replace(PKC, "signalAllAcceptedCredentials", signal("allAcceptedCredentials", "signalAllAcceptedCredentials", ["rpId", "userId", "allAcceptedCredentialIds"]));
  replace(PKC, "signalCurrentUserDetails", signal("currentUserDetails", "signalCurrentUserDetails", ["rpId", "userId", "name", "displayName"]));

  // parse*FromJSON (§5.1.11, §5.1.12): base64url members back to ArrayBuffers; bad base64url is EncodingError.
  const decodeDescriptors = (list, where) => (list || []).map((d, i) => ({ ...d, id: fromBase64url(d.id, `${where}[${i}].id`) }));
  const decodePrf = (prf) => {
    if (!prf) return prf;
    const values = (v) => v && { first: fromBase64url(v.first, "prf first"), ...(v.second !== undefined ? { second: fromBase64url(v.second, "prf second") } : {}) };
    const out = { ...prf };
    if (prf.eval) out.eval = values(prf.eval);
    if (prf.evalByCredential) {
      out.evalByCredential = Object.fromEntries(Object.entries(prf.evalByCredential).map(([k, v]) => [k, values(v)]));
    }
    return out;
  };
  const decodeExtensions = (extensions) => {
    if (!extensions) return extensions;
    const out = { ...extensions };
    if (extensions.prf) out.prf = decodePrf(extensions.prf);
    if (extensions.largeBlob && extensions.largeBlob.write !== undefined) {
      out.largeBlob = { ...extensions.largeBlob, write: fromBase64url(extensions.largeBlob.write, "largeBlob.write") };
    }
    return out;
  };
  replace(PKC, "parseCreationOptionsFromJSON", function parseCreationOptionsFromJSON(options) {
    required(options, ["rp", "user", "challenge", "pubKeyCredParams"], "PublicKeyCredentialCreationOptionsJSON");
    required(options.user, ["id", "name", "displayName"], "PublicKeyCredentialUserEntityJSON");
    const out = {
      ...options,
      user: { ...options.user, id: fromBase64url(options.user.id, "user.id") },
      challenge: fromBase64url(options.challenge, "challenge"),
    };
    if (options.excludeCredentials) out.excludeCredentials = decodeDescriptors(options.excludeCredentials, "excludeCredentials");
    if (options.extensions) out.extensions = decodeExtensions(options.extensions);
    return out;
  });
  replace(PKC, "parseRequestOptionsFromJSON", function parseRequestOptionsFromJSON(options) {
    required(options, ["challenge"], "PublicKeyCredentialRequestOptionsJSON");
    const out = { ...options, challenge: fromBase64url(options.challenge, "challenge") };
    if (options.allowCredentials) out.allowCredentials = decodeDescriptors(options.allowCredentials, "allowCredentials");
    if (options.extensions) out.extensions = decodeExtensions(options.extensions);
    return out;
  });
})();
