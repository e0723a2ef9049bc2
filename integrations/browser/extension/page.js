// passkeyd's page-world script (content script, world MAIN, document_start, every frame).
//
// Replaces navigator.credentials.create/get for `publicKey` and the PublicKeyCredential
// statics with versions that hand the ceremony to passkeyd, and makes everything a page can
// observe behave as Chromium's own WebAuthn (docs/browser-fidelity.md, checked case by case by
// Tests/Interop/test_browser_fidelity.py): the options go through the WebIDL conversions of
// WebAuthn L3 §5.4/§5.5 and the client extension checks of §10 before anything is sent; the
// objects returned are instances of the real PublicKeyCredential / AuthenticatorAttestationResponse
// / AuthenticatorAssertionResponse, whose accessors are wrapped to answer for them; and every
// function put in the page looks like a native one (name, length, toString, not constructible,
// a brand check on `this`).
//
// This script decides nothing a page could not decide for itself: it converts the options to
// their JSON form (§5.1.10), sends them to bridge.js (the isolated world) over a private
// MessagePort, and turns the answer back into objects or an exception. The origin is never sent
// from here: the background script takes it from the browser's message sender.
(() => {
  "use strict";
  if (!window.isSecureContext || !navigator.credentials) return;  // WebAuthn L3 §5: secure contexts only

  // Everything used after document_start is captured now, before any page script can replace it.
  const { stringify, parse } = JSON;
  const { apply, ownKeys, getOwnPropertyDescriptor: reflectDescriptor } = Reflect;
  const { defineProperty, getOwnPropertyDescriptor, create: objectCreate } = Object;
  const NativeProxy = Proxy;
  const listen = EventTarget.prototype.addEventListener;
  const unlisten = EventTarget.prototype.removeEventListener;
  const dispatch = EventTarget.prototype.dispatchEvent;
  const stopImmediate = Event.prototype.stopImmediatePropagation;
  const NativeMessageEvent = MessageEvent;
  const NativeMessageChannel = MessageChannel;
  const portPost = MessagePort.prototype.postMessage;
  const portStart = MessagePort.prototype.start;
  const eventData = getOwnPropertyDescriptor(MessageEvent.prototype, "data").get;
  const signalAborted = getOwnPropertyDescriptor(AbortSignal.prototype, "aborted").get;
  const signalReason = getOwnPropertyDescriptor(AbortSignal.prototype, "reason").get;
  const bufferBytes = getOwnPropertyDescriptor(ArrayBuffer.prototype, "byteLength").get;
  const typedArrayView = (v) => [
    apply(getOwnPropertyDescriptor(Object.getPrototypeOf(Uint8Array.prototype), "buffer").get, v, []),
    apply(getOwnPropertyDescriptor(Object.getPrototypeOf(Uint8Array.prototype), "byteOffset").get, v, []),
    apply(getOwnPropertyDescriptor(Object.getPrototypeOf(Uint8Array.prototype), "byteLength").get, v, [])];
  const dataView = (v) => [
    apply(getOwnPropertyDescriptor(DataView.prototype, "buffer").get, v, []),
    apply(getOwnPropertyDescriptor(DataView.prototype, "byteOffset").get, v, []),
    apply(getOwnPropertyDescriptor(DataView.prototype, "byteLength").get, v, [])];
  const isView = ArrayBuffer.isView;
  const iterator = Symbol.iterator;
  const nativeCreate = CredentialsContainer.prototype.create;
  const nativeGet = CredentialsContainer.prototype.get;
  const container = navigator.credentials;
  const NativeDOMException = DOMException;
  const NativeTypeError = TypeError;
  const NativeURL = URL;
  const fromCharCode = String.fromCharCode;
  const nativeBtoa = btoa;
  const nativeAtob = atob;
  const arrayPush = (list, value) => { list[list.length] = value; };
  // Promises as the browser's own are made: of the realm's original Promise, settled through its
  // original `then`, whatever the page did to window.Promise or Promise.prototype since.
  const NativePromise = Promise;
  const promiseThen = Promise.prototype.then;
  const promiseReject = Promise.reject;
  const rejected = (error) => apply(promiseReject, NativePromise, [error]);
  const then = (promise, onFulfilled, onRejected) => apply(promiseThen, promise, [onFulfilled, onRejected]);

  const typeError = (message) => new NativeTypeError(message);
  const domError = (name, message) => new NativeDOMException(message, name);

  // -- functions that look native (WebIDL §3.7: operations and attributes are built-in functions)

  // Each function put in the page is a Proxy of the native function it replaces, whose `apply`
  // trap runs ours: its name, length, missing `prototype` and non-constructibility are the
  // native's own, and so is the text the engine prints for it ("function create() { [native
  // code] } is not a constructor"). Function.prototype.toString is replaced (the same way) by
  // one that prints a native function's text for ours and forwards everything else. Where the
  // browser has no native to wrap (WebAuthn disabled), a method definition stands in.
  const disguised = new WeakMap();
  const nativeToString = Function.prototype.toString;
  const looksNative = (native, name, fn) => {
    const made = typeof native === "function"
      ? new NativeProxy(native, { apply: (target, that, args) => apply(fn, that, args) })
      : fn;
    disguised.set(made, `function ${name}() { [native code] }`);
    return made;
  };
  // A function of another same-origin frame is that frame's page.js's to describe: its own
  // realm's Function.prototype.toString (found through descriptors only, and used only when it
  // is one of ours: a Proxy, which the engine prints as "function () { [native code] }").
  const FunctionPrototype = Function.prototype;
  const ownValue = (object, key) => {
    const desc = getOwnPropertyDescriptor(object, key);
    return desc && desc.value;
  };
  const otherRealmsToString = (fn) => {
    const proto = Object.getPrototypeOf(fn);
    if (proto === FunctionPrototype || typeof proto !== "function") return null;
    const constructor = ownValue(proto, "constructor");
    if (typeof constructor !== "function" || ownValue(constructor, "prototype") !== proto
      || apply(nativeToString, constructor, []) !== "function Function() { [native code] }") return null;
    const other = ownValue(proto, "toString");
    return typeof other === "function" && apply(nativeToString, other, []) === "function () { [native code] }" ? other : null;
  };
  let asking = false;  // the other realm's toString may ask this one back: once is enough
  const toString = looksNative(nativeToString, "toString", { toString() {
    if (disguised.has(this)) return disguised.get(this);
    if (!asking && typeof this === "function") {
      const other = otherRealmsToString(this);
      if (other) {
        asking = true;
        try { return apply(other, this, []); } finally { asking = false; }
      }
    }
    return apply(nativeToString, this, []);
  } }.toString);
  defineProperty(Function.prototype, "toString", { ...getOwnPropertyDescriptor(Function.prototype, "toString"), value: toString });

  // -- base64url (RFC 4648 §5), the JSON form's encoding of every buffer -----------------

  const toBase64url = (bytes) => {
    let binary = "";
    for (let i = 0; i < bytes.length; i += 0x8000) binary += apply(fromCharCode, null, bytes.subarray(i, i + 0x8000));
    return nativeBtoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  };
  const isBase64url = (text) => typeof text === "string" && /^[A-Za-z0-9_-]*$/.test(text) && text.length % 4 !== 1;
  const fromBase64url = (text, what) => {
    if (!isBase64url(text)) throw domError("EncodingError", `${what} contains invalid base64url data`);
    const binary = nativeAtob(text.replace(/-/g, "+").replace(/_/g, "/"));
    const bytes = new Uint8Array(binary.length);
    for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
    return bytes.buffer;
  };

  // -- WebIDL conversions (WebIDL §3.2) ---------------------------------------------------

  const isObject = (v) => (typeof v === "object" && v !== null) || typeof v === "function";

  // A conversion's TypeError carries Chromium's bindings' sentence: the leaf's reason, prefixed
  // by one "Failed to read the 'm' property from 'D': " per dictionary on the way, and by
  // "Failed to execute 'op' on 'I': " at the operation. Only these errors are prefixed: what a
  // page's own getter throws goes through as it is, as in Chromium.
  const conversionErrors = new WeakSet();
  const idlError = (message) => {
    const error = typeError(message);
    conversionErrors.add(error);
    return error;
  };
  const within = (error, prefix) => conversionErrors.has(error) ? idlError(`${prefix}: ${error.message}`) : error;

  // parse*FromJSON's EncodingError names the member, and the dictionary it is in when that is
  // not the top one: "'allowCredentials' contains PublicKeyCredentialDescriptorJSON with invalid
  // base64url data in 'id'", as Chromium's.
  const encodingErrors = new WeakMap();  // error → {member, dictionary, named}
  const encodingError = (member) => {
    const error = domError("EncodingError", `'${member}' contains invalid base64url data`);
    encodingErrors.set(error, { member, dictionary: null, named: false });
    return error;
  };
  const inDictionary = (error, member, name) => {
    const info = encodingErrors.get(error);
    if (!info || info.named) return error;
    if (info.dictionary === null) {
      info.dictionary = name;
      return error;
    }
    const named = domError("EncodingError", `'${member}' contains ${info.dictionary} with invalid base64url data in '${info.member}'`);
    encodingErrors.set(named, { ...info, named: true });
    return named;
  };
  /** Runs `convert`; a conversion error comes out prefixed for operation `op` of `iface`. */
  const operation = (op, iface, convert) => {
    try { return convert(); } catch (error) {
      const prefix = `Failed to execute '${op}' on '${iface}'`;
      if (encodingErrors.has(error)) throw domError("EncodingError", `${prefix}: ${error.message}`);
      throw within(error, prefix);
    }
  };
  const number = (v) => {
    if (typeof v === "symbol") throw idlError("Cannot convert a Symbol value to a number");
    if (typeof v === "bigint") throw idlError("Cannot convert a BigInt value to a number");
    return +v;
  };
  const T = {
    DOMString: (v) => {
      if (typeof v === "symbol") throw idlError("Cannot convert a Symbol value to a string");
      return `${v}`;
    },
    boolean: (v) => !!v,
    long: (v) => number(v) | 0,
    unsignedLong: (v) => number(v) >>> 0,
    /** A BufferSource's bytes, copied now (an ArrayBuffer, or a view on one; never shared memory). */
    BufferSource: (v) => {
      let buffer, offset, length;
      if (isView(v)) {
        // The view's own slots, read through the native getters (a page's own getters on the
        // view do not count).
        try { [buffer, offset, length] = typedArrayView(v); } catch { [buffer, offset, length] = dataView(v); }
      } else {
        try { length = apply(bufferBytes, v, []); } catch {
          throw idlError("The provided value is not of type '(ArrayBuffer or ArrayBufferView)'.");
        }
        [buffer, offset] = [v, 0];
      }
      // A SharedArrayBuffer is no ArrayBuffer: its byteLength getter is another one.
      try { apply(bufferBytes, buffer, []); } catch {
        throw idlError(`The provided ${isView(v) ? "ArrayBufferView" : "ArrayBuffer"} value must not be shared.`);
      }
      return new Uint8Array(new Uint8Array(buffer, offset, length));
    },
    AbortSignal: (v) => {
      try { apply(signalAborted, v, []); } catch { throw idlError("Failed to convert value to 'AbortSignal'."); }
      return v;
    },
  };
  const enumeration = (values, name) => (v) => {
    const s = T.DOMString(v);
    if (!values.includes(s)) throw idlError(`The provided value '${s}' is not a valid enum value of type ${name}.`);
    return s;
  };
  const sequence = (of) => (v) => {
    if (!isObject(v)) throw idlError("The provided value cannot be converted to a sequence.");
    const method = v[iterator];
    if (typeof method !== "function") throw idlError("The object must have a callable @@iterator property.");
    const out = [];
    for (const item of { [iterator]: () => apply(method, v, []) }) arrayPush(out, of(item));
    return out;
  };
  const record = (of) => (v) => {
    if (!isObject(v)) throw idlError("The provided value is not of type 'record'.");
    const out = {};
    for (const key of ownKeys(v)) {
      if (typeof key !== "string") continue;
      const desc = reflectDescriptor(v, key);
      // Defined, not assigned: a key "__proto__" is an entry like any other.
      if (desc && desc.enumerable) {
        defineProperty(out, key, { value: of(v[key]), writable: true, enumerable: true, configurable: true });
      }
    }
    return out;
  };
  /** A dictionary: members read in WebIDL §3.2.17's order (an inherited dictionary's first, each
   *  dictionary's in lexicographic order), required ones a TypeError when absent, defaults
   *  filled; anything but an object, null or undefined is a TypeError. A member spec is
   *  [type, REQUIRED | default | undefined, the dictionary it is inherited from]. */
  const dictionary = (name, members) => {
    const names = Object.keys(members).sort((a, b) => {
      const [inheritedA, inheritedB] = [!!members[a][2], !!members[b][2]];
      return inheritedA !== inheritedB ? (inheritedA ? -1 : 1) : (a < b ? -1 : a > b ? 1 : 0);
    });
    const hasRequired = names.some((member) => members[member][1] === REQUIRED);
    return (v) => {
      // null is an empty dictionary, which cannot have its required members: Chromium says so
      // in these words.
      if ((v !== undefined && v !== null && !isObject(v)) || (v === null && hasRequired)) {
        throw idlError(`The provided value is not of type '${name}'.`);
      }
      const out = {};
      for (const member of names) {
        const [type, option, owner] = members[member];
        const where = `Failed to read the '${member}' property from '${owner || name}'`;
        const value = v == null ? undefined : v[member];
        if (value !== undefined) {
          try { out[member] = type(value, member); } catch (error) { throw inDictionary(within(error, where), member, name); }
        } else if (option === REQUIRED) {
          throw idlError(`${where}: Required member is undefined.`);
        } else if (option !== undefined) {
          out[member] = typeof option === "function" ? option() : option;
        }
      }
      return out;
    };
  };
  const REQUIRED = Symbol("required");
  const ENTITY = "PublicKeyCredentialEntity";  // rp's and user's `name` is inherited from it (§5.4.1)
  const empty = () => [];

  const MEDIATIONS = ["silent", "optional", "conditional", "required", "immediate"];
  const mediation = enumeration(MEDIATIONS, "CredentialMediationRequirement");

  /** The options dictionaries of WebAuthn L3 §5.4/§5.5 (`suffix` "") or their JSON forms (§5.1.11,
   *  §5.1.12, `suffix` "JSON"): the same members, buffers read by `buffer`. Two differences stay:
   *  only the IDL user entity's name is checked as an entity name, and the JSON descriptor lists
   *  `id` before `type` (both pinned by the fidelity battery). */
  function optionDictionaries(buffer, suffix) {
    const json = suffix === "JSON";
    const type = [T.DOMString, REQUIRED], id = [buffer, REQUIRED], transports = [sequence(T.DOMString)];
    const descriptor = dictionary(`PublicKeyCredentialDescriptor${suffix}`,
      json ? { id, type, transports } : { type, id, transports });
    const prfValues = dictionary(`AuthenticationExtensionsPRFValues${suffix}`, { first: [buffer, REQUIRED], second: [buffer] });
    // One AuthenticationExtensionsClientInputs for both ceremonies (its partial dictionaries:
    // WebAuthn L3 §10.1, CTAP 2.1 §12); each ceremony's checks pick the members they know.
    const extensionInputs = dictionary(`AuthenticationExtensionsClientInputs${suffix}`, {
      appid: [T.DOMString], appidExclude: [T.DOMString], credProps: [T.boolean],
      prf: [dictionary(`AuthenticationExtensionsPRFInputs${suffix}`, { eval: [prfValues], evalByCredential: [record(prfValues)] })],
      largeBlob: [dictionary(`AuthenticationExtensionsLargeBlobInputs${suffix}`, {
        support: [T.DOMString], read: [T.boolean], write: [buffer] })],
      credentialProtectionPolicy: [T.DOMString], enforceCredentialProtectionPolicy: [T.boolean, false],
      credBlob: [buffer], getCredBlob: [T.boolean], minPinLength: [T.boolean], hmacCreateSecret: [T.boolean],
    });
    const creation = dictionary(`PublicKeyCredentialCreationOptions${suffix}`, {
      rp: [dictionary("PublicKeyCredentialRpEntity", { id: [T.DOMString], name: [T.DOMString, REQUIRED, ENTITY] }), REQUIRED],
      user: [dictionary(`PublicKeyCredentialUserEntity${suffix}`, {
        id: [buffer, REQUIRED], name: json ? [T.DOMString, REQUIRED] : [T.DOMString, REQUIRED, ENTITY],
        displayName: [T.DOMString, REQUIRED] }), REQUIRED],
      challenge: [buffer, REQUIRED],
      pubKeyCredParams: [sequence(dictionary("PublicKeyCredentialParameters", {
        type: [T.DOMString, REQUIRED], alg: [T.long, REQUIRED] })), REQUIRED],
      timeout: [T.unsignedLong],
      excludeCredentials: [sequence(descriptor), empty],
      authenticatorSelection: [dictionary("AuthenticatorSelectionCriteria", {
        authenticatorAttachment: [T.DOMString], residentKey: [T.DOMString], requireResidentKey: [T.boolean, false],
        userVerification: [T.DOMString, "preferred"] })],
      hints: [sequence(T.DOMString), empty],
      attestation: [T.DOMString, "none"],
      attestationFormats: [sequence(T.DOMString), empty],
      extensions: [extensionInputs],
    });
    const request = dictionary(`PublicKeyCredentialRequestOptions${suffix}`, {
      challenge: [buffer, REQUIRED], timeout: [T.unsignedLong], rpId: [T.DOMString],
      allowCredentials: [sequence(descriptor), empty], userVerification: [T.DOMString, "preferred"],
      hints: [sequence(T.DOMString), empty], extensions: [extensionInputs],
    });
    return { creation, request };
  }
  const { creation: creationOptions, request: requestOptions } = optionDictionaries(T.BufferSource, "");
  // CredentialCreationOptions / CredentialRequestOptions (Credential Management §2.3, WebAuthn
  // L3 §5.1.3, §5.1.4); the other credential types' members stay the browser's.
  const credentialOptions = (name, publicKey) => dictionary(name, {
    mediation: [mediation, "optional"], signal: [T.AbortSignal], publicKey: [publicKey],
  });
  const createArguments = credentialOptions("CredentialCreationOptions", creationOptions);
  const getArguments = credentialOptions("CredentialRequestOptions", requestOptions);

  // -- the client's own checks (WebAuthn L3 §5.1.3, §5.1.4, §10) --------------------------

  // §5.1.3 step 11 / §5.1.4.1 step 10: a timeout is corrected into the client's range, as
  // Chromium's (10 s to 10 min): a page's 1 ms does not fail a ceremony the person is doing.
  const clampTimeout = (options) => {
    if (options.timeout !== undefined) options.timeout = Math.min(Math.max(options.timeout, 10_000), 600_000);
  };

  /** The FIDO AppID (and AppID exclusion) extensions' check (WebAuthn L3 §10.1.1-§10.1.2, FIDO
   *  AppID and Facet §3.1.2): an https URL whose host is this origin's or one it is under. */
  const checkAppID = (appid, name) => {
    let url;
    try { url = new NativeURL(appid); } catch { url = null; }
    const here = location.hostname;
    const host = url && url.hostname;
    if (!url || url.protocol !== "https:" || !(here === host || (host.includes(".") && here.endsWith(`.${host}`)))) {
      throw domError("SecurityError", "This is an invalid domain.");
    }
  };

  const PROTECTION_POLICIES = ["userVerificationOptional", "userVerificationOptionalWithCredentialIDList", "userVerificationRequired"];

  // The checks' DOMExceptions say what Chromium's say, word for word: a site's error handling
  // or its logs see the same sentences.
  const checkCreation = (options) => {
    // §5.1.3 step 5: user.id is 1 to 64 bytes (Chromium accepts 0; the spec and passkeyd do not).
    if (options.user.id.length > 64) throw typeError("User handle exceeds 64 bytes.");
    if (options.user.id.length < 1) throw typeError("User handle must not be empty.");
    const ext = options.extensions || {};
    if (ext.appidExclude !== undefined) checkAppID(ext.appidExclude, "appidExclude");
    if (ext.credentialProtectionPolicy !== undefined && !PROTECTION_POLICIES.includes(ext.credentialProtectionPolicy)) {
      throw domError("NotSupportedError", "Required parameters missing in `options.publicKey`.");
    }
    // §10.1.4 registration: evalByCredential belongs to authentication.
    if (ext.prf && ext.prf.evalByCredential !== undefined) {
      throw domError("NotSupportedError", "The 'evalByCredential' field cannot be set when creating a credential.");
    }
    // §10.1.5 registration: read and write belong to authentication.
    for (const member of ["read", "write"]) {
      if (ext.largeBlob && ext.largeBlob[member] !== undefined) {
        throw domError("NotSupportedError", `The 'largeBlob' extension's '${member}' parameter is only valid when requesting an assertion`);
      }
    }
    clampTimeout(options);
  };

  const checkRequest = (options) => {
    const ext = options.extensions || {};
    if (ext.appid !== undefined) checkAppID(ext.appid, "appid");
    if (ext.prf && ext.prf.evalByCredential !== undefined) {
      // §10.1.4 authentication steps 1-2.
      const keys = Object.keys(ext.prf.evalByCredential);
      if (keys.length > 0 && options.allowCredentials.length === 0) {
        throw domError("NotSupportedError", "'prf' extension has 'evalByCredential' with an empty allow list");
      }
      const allowed = options.allowCredentials.map((d) => toBase64url(d.id));
      for (const key of keys) {
        if (key === "" || !isBase64url(key)) {
          throw domError("SyntaxError", "'prf' extension contains invalid base64url data in 'evalByCredential'");
        }
        if (!allowed.includes(toBase64url(new Uint8Array(fromBase64url(key, "key"))))) {
          throw domError("SyntaxError", "'prf' extension contains 'evalByCredential' key that doesn't match any in allowedCredentials");
        }
      }
    }
    // §10.1.5 authentication.
    if (ext.largeBlob) {
      if (ext.largeBlob.support !== undefined) {
        throw domError("NotSupportedError", "The 'largeBlob' extension's 'support' parameter is only valid when creating a credential");
      }
      if (ext.largeBlob.read !== undefined && ext.largeBlob.write !== undefined) {
        throw domError("NotSupportedError", "Only one of the 'largeBlob' extension's 'read' and 'write' parameters is allowed at a time");
      }
      if (ext.largeBlob.write !== undefined && options.allowCredentials.length !== 1) {
        throw domError("NotSupportedError", "The 'largeBlob' extension's 'write' parameter can only be used with a single credential present on 'allowCredentials'");
      }
    }
    clampTimeout(options);
  };

  /** The JSON form of a converted dictionary: every buffer becomes base64url (§5.1.10). */
  const toJSONForm = (value) => {
    if (value === null || typeof value !== "object") return value;
    if (value instanceof Uint8Array) return toBase64url(value);
    if (Array.isArray(value)) return value.map(toJSONForm);
    const out = {};
    for (const key of Object.keys(value)) out[key] = toJSONForm(value[key]);
    return out;
  };

  // -- the objects a page gets back --------------------------------------------------------

  const ours = new WeakMap();  // credential or response object → its decoded data

  /** Wraps one accessor or method of a native prototype: ours answer, natives go through. */
  const answer = (proto, name, ourValue) => {
    if (!proto) return;
    const desc = getOwnPropertyDescriptor(proto, name);
    if (desc && desc.get) {
      const native = desc.get;
      const get = getOwnPropertyDescriptor({ get [name]() { return ours.has(this) ? ourValue(ours.get(this)) : apply(native, this, []); } }, name).get;
      defineProperty(proto, name, { ...desc, get: looksNative(native, `get ${name}`, get) });
    } else {
      const native = desc && desc.value;
      const method = { [name]() {
        if (ours.has(this)) return ourValue(ours.get(this));
        if (native) return apply(native, this, arguments);
        throw typeError("Illegal invocation");
      } }[name];
      defineProperty(proto, name, { value: looksNative(native, name, method), writable: true, enumerable: true, configurable: true });
    }
  };

  /** A stand-in interface where the browser has none (WebAuthn disabled): illegal to construct. */
  const standIn = (name, parent) => {
    const cls = { [name]: class extends (parent || Object) { constructor() { throw typeError("Illegal constructor"); } } }[name];
    defineProperty(window, name, { value: cls, writable: true, configurable: true, enumerable: false });
    return cls;
  };
  const Credential_ = window.Credential || standIn("Credential");
  const PKC = window.PublicKeyCredential || standIn("PublicKeyCredential", Credential_);
  const Response_ = window.AuthenticatorResponse || standIn("AuthenticatorResponse");
  const Attestation = window.AuthenticatorAttestationResponse || standIn("AuthenticatorAttestationResponse", Response_);
  const Assertion = window.AuthenticatorAssertionResponse || standIn("AuthenticatorAssertionResponse", Response_);

  // Each response getter answers only for its own interface's objects: another interface's
  // getter called on ours is a TypeError, as the browser's brand check makes it.
  const only = (kind, pick) => (d) => {
    if (d.kind !== kind) throw typeError("Illegal invocation");
    return pick(d);
  };
  const credentialOnly = (pick) => only("credential", pick);
  const responseOnly = (pick) => (d) => {
    if (d.kind === "credential") throw typeError("Illegal invocation");
    return pick(d);
  };
  answer(Credential_.prototype, "id", credentialOnly((d) => d.json.id));
  answer(Credential_.prototype, "type", credentialOnly((d) => d.json.type));
  answer(PKC.prototype, "rawId", credentialOnly((d) => d.rawId));
  answer(PKC.prototype, "response", credentialOnly((d) => d.response));
  answer(PKC.prototype, "authenticatorAttachment", credentialOnly((d) => d.json.authenticatorAttachment ?? null));
  answer(PKC.prototype, "getClientExtensionResults", credentialOnly((d) => extensionResults(d.json.clientExtensionResults || {})));
  answer(PKC.prototype, "toJSON", credentialOnly((d) => parse(stringify(d.json))));
  answer(Response_.prototype, "clientDataJSON", responseOnly((d) => d.buffers.clientDataJSON));
  answer(Attestation.prototype, "attestationObject", only("attestation", (d) => d.buffers.attestationObject));
  answer(Attestation.prototype, "getTransports", only("attestation", (d) => [...(d.json.response.transports || [])]));
  answer(Attestation.prototype, "getAuthenticatorData", only("attestation", (d) => d.buffers.authenticatorData));
  answer(Attestation.prototype, "getPublicKey", only("attestation", (d) => d.buffers.publicKey ?? null));
  answer(Attestation.prototype, "getPublicKeyAlgorithm", only("attestation", (d) => d.json.response.publicKeyAlgorithm));
  answer(Assertion.prototype, "authenticatorData", only("assertion", (d) => d.buffers.authenticatorData));
  answer(Assertion.prototype, "signature", only("assertion", (d) => d.buffers.signature));
  answer(Assertion.prototype, "userHandle", only("assertion", (d) => d.buffers.userHandle ?? null));

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
    decode(results, "getCredBlob");
    return results;
  };

  /** A PublicKeyCredential from a RegistrationResponseJSON or AuthenticationResponseJSON. */
  const credentialFrom = (json, registration) => {
    const buffers = {};
    for (const [key, value] of Object.entries(json.response || {})) {
      if (typeof value === "string") buffers[key] = fromBase64url(value, `response.${key}`);
    }
    // Each object is a transparent Proxy of an empty one with the interface's prototype: the
    // structured clone algorithm refuses a Proxy (DataCloneError), as it refuses the browser's
    // PublicKeyCredential, while getters, instanceof and own keys are those of the target.
    const response = new NativeProxy(objectCreate((registration ? Attestation : Assertion).prototype), {});
    const credential = new NativeProxy(objectCreate(PKC.prototype), {});
    const data = { json, buffers, response, rawId: fromBase64url(json.rawId, "rawId") };
    ours.set(response, { ...data, kind: registration ? "attestation" : "assertion" });
    ours.set(credential, { ...data, kind: "credential" });
    return credential;
  };

  // -- the private channel to bridge.js (docs/browser-protocol.md, "The page's channel") --
  //
  // A MessagePort handed to the isolated world at document_start, before any page script runs:
  // nothing of the extension's traffic is a `message` event on the window, where the page's own
  // listeners would see it. bridge.js takes the first port it is offered; it may run before this
  // script (then it hears the offer) or after (then it says "passkeyd:ready" and is offered again).

  const channel = new NativeMessageChannel();
  const port = channel.port1;
  const offer = () => apply(dispatch, window, [new NativeMessageEvent("passkeyd:channel", { ports: [channel.port2] })]);
  let reoffered = false;
  const onReady = (event) => {
    apply(stopImmediate, event, []);
    if (reoffered) return;  // at most once: the bridge takes only its first port
    reoffered = true;
    offer();
  };
  apply(listen, window, ["passkeyd:ready", onReady, true]);
  offer();

  const send = (message) => apply(portPost, port, [message]);

  let nextId = 0;
  const pending = new Map();  // local id → {resolve, reject, fallback, done, ceremony, conditional}

  apply(listen, port, ["message", (event) => {
    const message = apply(eventData, event, []);
    if (!message || typeof message !== "object") return;
    if (message.type === "hello") {
      apply(unlisten, window, ["passkeyd:ready", onReady, true]);
      return;
    }
    const request = pending.get(message.id);
    if (!request) return;
    pending.delete(message.id);
    request.done();
    if (message.type === "result") request.resolve(message);
    else if (message.type === "fallback") request.fallback();
    else request.reject(errorFrom(message));
  }]);
  apply(portStart, port, []);

  const errorFrom = (message) => {
    if (message.name === "TypeError") return typeError(message.message);
    return domError(message.name || "UnknownError", message.message || "The operation failed.");
  };

  /** Sends one request; settles with the host's answer, the signal's reason, or the fallback. */
  const call = (type, members, signal, fallback, ceremony) => new NativePromise((resolve, reject) => {
    const id = ++nextId;
    const onAbort = () => {
      if (!pending.delete(id)) return;
      send({ type: "abort", id });
      reject(apply(signalReason, signal, []));
    };
    const done = () => { if (signal) apply(unlisten, signal, ["abort", onAbort]); };
    if (signal) apply(listen, signal, ["abort", onAbort]);
    pending.set(id, {
      resolve, reject, done, ceremony, conditional: members.mediation === "conditional",
      abort: () => { if (pending.delete(id)) { done(); send({ type: "abort", id }); reject(domError("AbortError", "A new request replaced this one.")); } },
      fallback: () => fallback ? then(fallback(), resolve, reject)
        : reject(domError("NotAllowedError", "passkeyd is not running.")),
    });
    send({ type, id, ...members });
  });

  /** One ceremony at a time per document, as Chromium: a second while one is pending is an
   *  OperationError; a pending conditional request gives way to the new one. */
  const admit = () => {
    for (const request of pending.values()) {
      if (!request.ceremony) continue;
      if (request.conditional) request.abort();
      else return domError("OperationError", "A request is already pending.");
    }
    return null;
  };

  // -- navigator.credentials ---------------------------------------------------------------

  // WebAuthn L3 §5.1.3 step 2 / §5.1.4.1 step 2: a frame the permissions policy does not allow
  // (a cross-origin iframe without allow="publickey-credentials-…") gets NotAllowedError.
  // The privileged side checks it too: this check only spares a round trip.
  const policy = document.featurePolicy || document.permissionsPolicy;
  const allowsFeature = policy && typeof policy.allowsFeature === "function" ? policy.allowsFeature.bind(policy) : null;
  const allowedHere = (feature) => !allowsFeature || allowsFeature(feature);
  const refusedByPolicy = (feature) => domError(
    "NotAllowedError", `The '${feature}' feature is not enabled in this document (permissions policy).`);

  /** The steps both ceremonies share, in the browser's order: `this` (WebIDL's brand check),
   *  the options' conversion, then the signal, the policy and the client's checks. */
  const ceremony = (that, args, kind) => {
    // A foreign `this` is an illegal invocation, and no ceremony runs (another realm's container
    // is served by that realm's own copy of this script).
    if (that !== container) return rejected(typeError(`Failed to execute '${kind}' on 'CredentialsContainer': Illegal invocation`));
    const native = kind === "create" ? nativeCreate : nativeGet;
    let options;
    try {
      options = operation(kind, "CredentialsContainer", () => (kind === "create" ? createArguments : getArguments)(args[0]));
    } catch (error) {
      return rejected(error);
    }
    if (options.publicKey === undefined) return apply(native, that, args);
    if (options.signal && apply(signalAborted, options.signal, [])) return rejected(apply(signalReason, options.signal, []));
    const feature = kind === "create" ? "publickey-credentials-create" : "publickey-credentials-get";
    if (!allowedHere(feature)) return rejected(refusedByPolicy(feature));
    try {
      (kind === "create" ? checkCreation : checkRequest)(options.publicKey);
    } catch (error) {
      return rejected(error);
    }
    const busy = admit();
    if (busy) return rejected(busy);
    const members = { options: toJSONForm(options.publicKey) };
    if (kind === "get") members.mediation = options.mediation;
    return then(call(kind, members, options.signal, () => apply(native, that, args), true),
      (reply) => reply.credential ? credentialFrom(reply.credential, kind === "create") : reply);
  };

  const methods = {
    create() { return ceremony(this, arguments, "create"); },
    get() { return ceremony(this, arguments, "get"); },
  };
  const replace = (holder, name, fn) => {
    const native = getOwnPropertyDescriptor(holder, name);
    defineProperty(holder, name, {
      value: looksNative(native && native.value, name, fn), writable: true, enumerable: true, configurable: true,
    });
  };
  replace(CredentialsContainer.prototype, "create", methods.create);
  replace(CredentialsContainer.prototype, "get", methods.get);

  // store() (Credential Management §2.2): a PublicKeyCredential cannot be stored (WebAuthn L3
  // §5.1.5, [[Store]] is NotSupportedError); any other credential is the browser's.
  const nativeStore = CredentialsContainer.prototype.store;
  if (nativeStore) {
    replace(CredentialsContainer.prototype, "store", { store(credential) {
      if (this === container && ours.has(credential)) {
        return rejected(domError("NotSupportedError", "Store operation not permitted for this credential type."));
      }
      return apply(nativeStore, this, arguments);
    } }.store);
  }

  // -- PublicKeyCredential statics (WebAuthn L3 §5.1.6-§5.1.12, §5.1.9 signals) -----------

  // With the fallback chosen and passkeyd unavailable, the browser's own answer stands.
  const nativeCapabilities = PKC.getClientCapabilities;
  const capabilities = () => then(
    call("capabilities", {}, null, nativeCapabilities && (() => apply(nativeCapabilities, PKC, [])), false),
    (reply) => reply.capabilities || reply);

  const statics = {
    getClientCapabilities() { return capabilities(); },
    isUserVerifyingPlatformAuthenticatorAvailable() {
      return then(capabilities(), (c) => c.userVerifyingPlatformAuthenticator === true, () => false);
    },
    isConditionalMediationAvailable() {
      return then(capabilities(), (c) => c.conditionalGet === true, () => false);
    },
  };
  for (const name of Object.keys(statics)) replace(PKC, name, statics[name]);

  // The Signal API (§5.1.9): its options dictionaries, converted, then sent as they are.
  const signalOptions = {
    signalUnknownCredential: ["unknownCredential", dictionary("UnknownCredentialOptions", {
      rpId: [T.DOMString, REQUIRED], credentialId: [T.DOMString, REQUIRED] })],
    signalAllAcceptedCredentials: ["allAcceptedCredentials", dictionary("AllAcceptedCredentialsOptions", {
      rpId: [T.DOMString, REQUIRED], userId: [T.DOMString, REQUIRED],
      allAcceptedCredentialIds: [sequence(T.DOMString), REQUIRED] })],
    signalCurrentUserDetails: ["currentUserDetails", dictionary("CurrentUserDetailsOptions", {
      rpId: [T.DOMString, REQUIRED], userId: [T.DOMString, REQUIRED], name: [T.DOMString, REQUIRED],
      displayName: [T.DOMString, REQUIRED] })],
  };
  for (const [name, [kind, convert]] of Object.entries(signalOptions)) {
    const fn = { [name](options) {
      let json;
      try { json = operation(name, "PublicKeyCredential", () => convert(options)); } catch (error) { return rejected(error); }
      return then(call("signal", { kind, options: json }, null, null, false), () => undefined);
    } }[name];
    replace(PKC, name, fn);
  }

  // parse*FromJSON (§5.1.11, §5.1.12): the JSON dictionary converted (unknown members dropped,
  // defaults filled), its base64url members back to ArrayBuffers; bad base64url is EncodingError.
  const B64 = (v, member) => {
    const text = T.DOMString(v);
    if (!isBase64url(text)) throw encodingError(member);
    return fromBase64url(text, member);
  };
  const { creation: creationOptionsJSON, request: requestOptionsJSON } = optionDictionaries(B64, "JSON");
  const parsers = {
    parseCreationOptionsFromJSON(options) {
      return operation("parseCreationOptionsFromJSON", "PublicKeyCredential", () => creationOptionsJSON(options));
    },
    parseRequestOptionsFromJSON(options) {
      return operation("parseRequestOptionsFromJSON", "PublicKeyCredential", () => requestOptionsJSON(options));
    },
  };
  for (const name of Object.keys(parsers)) replace(PKC, name, parsers[name]);
})();
