"""The differential test's battery: page-level WebAuthn cases, each run in two Chromiums.

The oracle is Debian's Chromium with its own WebAuthn answered by a CDP virtual authenticator
(WebAuthn.addVirtualAuthenticator: CTAP 2.1, usb, resident keys, built-in UV, largeBlob, credBlob,
prf) and no passkeyd extension. The subject is the same Chromium with the passkeyd extension and
native host (`passkeyctl browser install --automation`) against a real passkeyd. Every case is
an async function body run in a page of the same site (http://localhost:PORT, a secure context);
it returns a normalized outcome — a JSON value describing what resolved, or `{error: NAME}` — and
the two outcomes must be equal.

Cases marked with an `Exception` are not counted as agreement: there Chromium contradicts the
spec (passkeyd follows the spec) or its virtual authenticator is not a faithful oracle of a real
Chromium; each says why and which outcome passkeyd must give, and that is asserted instead.
`HostGap` cases are where passkeyd's host (Swift) does not yet do what Chromium does; they are
run and reported, not counted (docs/browser-fidelity.md lists them).
"""

from __future__ import annotations

import http.server
import json
import os
import shutil
import tempfile
import threading
from dataclasses import dataclass

from browser_driver import Chromium, ChromiumPage

# The virtual authenticator the oracle's Chromium answers with (CDP WebAuthn domain).
VIRTUAL_AUTHENTICATOR = {
    "protocol": "ctap2", "ctap2Version": "ctap2_1", "transport": "usb", "hasResidentKey": True,
    "hasUserVerification": True, "isUserVerified": True, "automaticPresenceSimulation": True,
    "hasLargeBlob": True, "hasCredBlob": True, "hasMinPinLength": True, "hasPrf": True,
}

# The page's own script, before any case: the helpers cases use, and a `message` listener
# registered as early as a page can (the first script in <head>) that counts what it sees.
HELPERS = r"""
window.messagesSeen = [];
addEventListener("message", (event) => messagesSeen.push(String(event.data).slice(0, 80)), true);
addEventListener("passkeyd:channel", (event) => messagesSeen.push("channel event"), true);
addEventListener("passkeyd:ready", (event) => messagesSeen.push("ready event"), true);
window.F = (() => {
  const rand = (n) => crypto.getRandomValues(new Uint8Array(n));
  let serial = 0;
  const user = () => ({id: rand(16), name: `user${++serial}`, displayName: `User ${serial}`});
  const creation = (over = {}) => ({rp: {name: "Fidelity"}, user: user(), challenge: rand(32),
    pubKeyCredParams: [{type: "public-key", alg: -7}],
    authenticatorSelection: {residentKey: "discouraged", userVerification: "discouraged"}, ...over});
  const resident = (over = {}) => creation({authenticatorSelection: {residentKey: "required",
    userVerification: "discouraged"}, ...over});
  const request = (over = {}) => ({challenge: rand(32), userVerification: "discouraged", ...over});
  const create = (publicKey, rest = {}) => navigator.credentials.create({publicKey, ...rest});
  let known = null;
  const credential = async () => known ??= await create(creation());
  const allow = async () => [{type: "public-key", id: (await credential()).rawId}];
  const get = async (over = {}, rest = {}) =>
    navigator.credentials.get({publicKey: request({allowCredentials: await allow(), ...over}), ...rest});
  // A DOMException by its name; a TypeError with its message too (the bindings' sentences are
  // part of what a page sees: logged, shown, matched by a site's error handling).
  const errorName = (e) => e instanceof DOMException ? (window.fidelityMessages ? `${e.name}: ${e.message}` : e.name)
    : e instanceof TypeError ? `TypeError: ${e.message}`
    : e instanceof Error ? e.constructor.name : `thrown ${typeof e}`;
  const outcome = async (run) => {
    try { return {value: await run()}; } catch (e) { return {error: errorName(e)}; }
  };
  /** A value's shape: buffers and strings by type, booleans and null as they are. */
  const shape = (v) => {
    if (v === null || v === undefined || typeof v === "boolean") return v ?? null;
    if (v instanceof ArrayBuffer) return `ArrayBuffer`;
    if (ArrayBuffer.isView(v)) return v.constructor.name;
    if (Array.isArray(v)) return v.map(shape);
    if (typeof v === "object") {
      return Object.fromEntries(Object.keys(v).sort().map((k) => [k, shape(v[k])]));
    }
    return typeof v;
  };
  const b64 = (buffer) => btoa(String.fromCharCode(...new Uint8Array(buffer)))
    .replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  /** What a credential is, as far as both authenticators must agree. */
  const described = (c) => ({
    proto: Object.getPrototypeOf(c) === PublicKeyCredential.prototype,
    tag: Object.prototype.toString.call(c), type: c.type, idIsRawId: c.id === b64(c.rawId),
    rawId: shape(c.rawId), attachment: c.authenticatorAttachment,
    response: Object.prototype.toString.call(c.response), extensions: shape(c.getClientExtensionResults()),
  });
  /** A native-looking function, as far as a page can look. */
  const looks = (f) => ({
    type: typeof f, name: f.name, length: f.length, text: Function.prototype.toString.call(f),
    prototype: Object.prototype.hasOwnProperty.call(f, "prototype"),
    constructs: (() => { try { Reflect.construct(f, []); return true; } catch (e) { return errorName(e); } })(),
  });
  const descriptor = (o, k) => {
    const d = Object.getOwnPropertyDescriptor(o, k);
    return d && {get: typeof d.get, set: typeof d.set, value: typeof d.value, writable: d.writable ?? null,
      enumerable: d.enumerable, configurable: d.configurable};
  };
  const settle = (p) => p.then((v) => ({value: v === undefined ? "undefined" : typeof v}),
    (e) => ({error: errorName(e)}));
  /** Runs `code` (an async function body) in a frame of OTHER (another origin: another port of
   *  localhost) with `allow`, and answers what it returned. */
  const inFrame = (allow, code) => new Promise((resolve) => {
    const frame = document.createElement("iframe");
    frame.allow = allow;
    frame.src = `${OTHER}/?frame`;
    const answered = (event) => {
      if (event.origin !== OTHER || event.source !== frame.contentWindow) return;
      removeEventListener("message", answered);
      frame.remove();
      resolve(JSON.parse(event.data));
    };
    addEventListener("message", answered);
    frame.onload = () => frame.contentWindow.postMessage(code, OTHER);
    document.body.append(frame);
  });
  if (window !== top) {
    addEventListener("message", async (event) => {
      if (event.source !== parent) return;
      const run = new (Object.getPrototypeOf(async () => {}).constructor)(event.data);
      let value;
      try { value = await run(); } catch (e) { value = {harness: String(e)}; }
      parent.postMessage(JSON.stringify(value), "*");
    });
  }
  return {inFrame, rand, user, creation, resident, request, create, get, credential, allow, outcome, shape, described,
    looks, descriptor, b64, errorName, settle};
})();
"""

PAGE = """<!doctype html>
<meta charset="utf-8"><title>fidelity</title>
<script>const OTHER = {other};</script>
<script>{helpers}</script>
<body><input id="username" autocomplete="username webauthn"></body>
"""


class Site:
    """http://localhost:PORT serving one page (every path) with the helpers, and the same page on
    a second port (`other`: another origin of the same site, for cross-origin frames)."""

    def start(self) -> "Site":
        self.servers = [http.server.ThreadingHTTPServer(("127.0.0.1", 0), self._handler()) for _ in range(2)]
        self.origin, self.other = (f"http://localhost:{s.server_address[1]}" for s in self.servers)
        for server in self.servers:
            threading.Thread(target=server.serve_forever, daemon=True).start()
        return self

    def _handler(self):
        site = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                body = PAGE.format(helpers=HELPERS, other=json.dumps(site.other)).encode()
                self.send_response(200)
                self.send_header("Content-Type", "text/html")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        return Handler

    def stop(self) -> None:
        for server in self.servers:
            server.shutdown()
            server.server_close()


@dataclass(frozen=True)
class Exception_:
    """Why a case is not counted, and what passkeyd must answer there instead of agreeing."""

    kind: str          # "spec": Chromium contradicts the spec; "oracle": the virtual authenticator is unfaithful
    why: str
    passkeyd: object   # the outcome passkeyd must give, or a function of Chromium's that makes it

    def expected(self, oracle):
        return self.passkeyd(oracle) if callable(self.passkeyd) else self.passkeyd


@dataclass(frozen=True)
class HostGap:
    """Chromium does it, passkeyd's host does not yet: the Swift change that would close it."""

    needs: str


@dataclass(frozen=True)
class Case:
    area: str
    name: str
    js: str                              # an async function body returning an outcome
    exception: Exception_ | None = None
    gap: HostGap | None = None
    hold: bool = False                   # the authenticator must hold the ceremony a while (concurrency)
    counts: bool = False                 # the outcome also says how many discoverable credentials it stored


CASES: list[Case] = []


def case(area: str, name: str, js: str, **extra) -> None:
    CASES.append(Case(area, name, js, **extra))


def error(name: str) -> dict:
    return {"error": name}


RESOLVED = {"value": "resolved"}


def with_members(**members):
    """Chromium's resolved shape with `members` (dotted paths) set, or removed where None."""
    def make(oracle):
        value = json.loads(json.dumps(oracle))
        for path, member in members.items():
            holder, *keys = ["value", *path.split("__")]
            target = value[holder]
            for key in keys[:-1]:
                target = target[key]
            if member is None:
                target.pop(keys[-1], None)
            else:
                target[keys[-1]] = member
        return value
    return make


# WebAuthn L3 gives these members defaults Chromium 156's parse*FromJSON leaves out.
ATTESTATION_FORMATS = ("Chromium 156 has no attestationFormats (WebAuthn L3 §5.4: sequence<DOMString> "
                       "attestationFormats = []); passkeyd fills the default and passes the member on.")


# A create or get outcome reduced to what both sides must share.
CREATED = "F.outcome(async () => F.described(await F.create({})))"
GOT = "F.outcome(async () => F.described(await F.get({})))"


def created(over: str, rest: str = "{}") -> str:
    return f"return F.outcome(async () => F.described(await F.create(F.creation({over}), {rest})));"


def got(over: str, rest: str = "{}") -> str:
    return f"return F.outcome(async () => F.described(await F.get({over}, {rest})));"


NO_CLAMP = Exception_(
    "oracle", "Chromium's virtual environment skips the timeout clamp: a timeout of a few ms races the virtual "
    "authenticator (NotAllowedError or a credential, run to run), where a real Chromium corrects it to its 10 s "
    "minimum (L3 §5.1.3 step 11, §5.1.4.1 step 10) and the ceremony completes; passkeyd clamps as Chromium does.",
    RESOLVED)

# -- IDL conversion: create (WebAuthn L3 §5.4, WebIDL §3.2) --------------------------------
A = "IDL create"
case(A, "a valid registration", created("{}"))
case(A, "rp missing", "const o = F.creation(); delete o.rp; return F.outcome(() => F.create(o));")
case(A, "user missing", "const o = F.creation(); delete o.user; return F.outcome(() => F.create(o));")
case(A, "challenge missing", "const o = F.creation(); delete o.challenge; return F.outcome(() => F.create(o));")
case(A, "pubKeyCredParams missing",
     "const o = F.creation(); delete o.pubKeyCredParams; return F.outcome(() => F.create(o));")
case(A, "rp.name missing", "return F.outcome(() => F.create(F.creation({rp: {}})));")
case(A, "user.displayName missing",
     "const u = F.user(); delete u.displayName; return F.outcome(() => F.create(F.creation({user: u})));")
case(A, "user.name missing",
     "const u = F.user(); delete u.name; return F.outcome(() => F.create(F.creation({user: u})));")
case(A, "challenge a string", "return F.outcome(() => F.create(F.creation({challenge: 'abc'})));")
case(A, "user.id a string", "return F.outcome(() => F.create(F.creation({user: {...F.user(), id: 'abc'}})));")
case(A, "challenge a DataView", created("{challenge: new DataView(F.rand(32).buffer)}"))
case(A, "pubKeyCredParams an object", "return F.outcome(() => F.create(F.creation({pubKeyCredParams: {}})));")
case(A, "pubKeyCredParams member without alg",
     "return F.outcome(() => F.create(F.creation({pubKeyCredParams: [{type: 'public-key'}]})));")
case(A, "alg a numeric string converts to a long", created("{pubKeyCredParams: [{type: 'public-key', alg: '-7'}]}"))
case(A, "pubKeyCredParams empty means ES256 and RS256", created("{pubKeyCredParams: []}"))
case(A, "only an unknown credential type", "return F.outcome(() => F.create(F.creation("
     "{pubKeyCredParams: [{type: 'bogus', alg: -7}]})));")
case(A, "timeout negative wraps", created("{timeout: -1}"))
case(A, "timeout a numeric string", created("{timeout: '30000'}"))
case(A, "timeout NaN converts to 0", created("{timeout: NaN}"),
     exception=Exception_("oracle", "NaN converts to 0 (WebIDL unsigned long); Chromium's virtual environment skips "
                          "the timeout clamp, so 0 ms times out at once, where a real Chromium corrects it to its "
                          "10 s minimum (L3 §5.1.3 step 11) and registers; passkeyd clamps as Chromium does.", RESOLVED))
case(A, "timeout past 2^32 wraps", created("{timeout: 2 ** 32 + 5}"), exception=NO_CLAMP)
case(A, "timeout 1 ms is corrected into the client's range", created("{timeout: 1}"), exception=NO_CLAMP)
case(A, "timeout a Symbol", "return F.outcome(() => F.create(F.creation({timeout: Symbol()})));")
case(A, "unknown residentKey, userVerification, attachment are ignored",
     created("{authenticatorSelection: {residentKey: 'bogus', userVerification: 'bogus', "
             "authenticatorAttachment: 'bogus'}}"))
case(A, "unknown attestation and hints are ignored", created("{attestation: 'bogus', hints: ['bogus']}"))
case(A, "excludeCredentials member with a string id",
     "return F.outcome(() => F.create(F.creation({excludeCredentials: [{type: 'public-key', id: 'abc'}]})));")
case(A, "excludeCredentials member without type",
     "return F.outcome(() => F.create(F.creation({excludeCredentials: [{id: F.rand(16)}]})));")
case(A, "excludeCredentials naming a credential of this authenticator",
     "const c = await F.credential(); return F.outcome(() => F.create(F.creation("
     "{excludeCredentials: [{type: 'public-key', id: c.rawId}]})));")
case(A, "user.id of 65 bytes", "return F.outcome(() => F.create(F.creation({user: {...F.user(), id: F.rand(65)}})));")
case(A, "user.id empty", "return F.outcome(() => F.create(F.creation({user: {...F.user(), id: new Uint8Array(0)}})));",
     exception=Exception_("spec", "Chromium 156 accepts an empty user.id; WebAuthn L3 §5.1.3 step 5 says its length "
                          "must be 1 to 64 bytes, else TypeError.", error("TypeError: User handle must not be empty.")))
case(A, "publicKey a number", "return F.outcome(() => navigator.credentials.create({publicKey: 5}));")
case(A, "publicKey null, a dictionary with required members",
     "return F.outcome(() => navigator.credentials.create({publicKey: null}));")
case(A, "authenticatorSelection null converts to an empty dictionary", created("{authenticatorSelection: null}"))
case(A, "extensions null converts to an empty dictionary", created("{extensions: null}"))
case(A, "rp.id of another site", "return F.outcome(() => F.create(F.creation({rp: {name: 'x', id: 'example.com'}})));")
case(A, "signal not an AbortSignal", "return F.outcome(() => F.create(F.creation(), {signal: {}}));")
case(A, "signal already aborted", "return F.outcome(() => F.create(F.creation(), {signal: AbortSignal.abort()}));")
case(A, "signal aborted with a reason rejects with it",
     "try { await F.create(F.creation(), {signal: AbortSignal.abort(42)}); return 'resolved'; }"
     " catch (e) { return {reason: e}; }")
case(A, "unknown mediation on create", "return F.outcome(() => F.create(F.creation(), {mediation: 'bogus'}));")
case(A, "no publicKey", "return F.outcome(() => navigator.credentials.create({}));")
case(A, "options not a dictionary", "return F.outcome(() => navigator.credentials.create(5));")
case(A, "no arguments", "return F.outcome(() => navigator.credentials.create());")
case(A, "names convert to strings", created("{rp: {name: 5}, user: {...F.user(), name: {toString: () => 'n'}, "
     "displayName: 7}}"))
case(A, "hints a string is not a sequence", "return F.outcome(() => F.create(F.creation({hints: 'client-device'})));")
case(A, "unknown transports in excludeCredentials are ignored",
     created("{excludeCredentials: [{type: 'public-key', id: F.rand(16), transports: ['bogus']}]}"))
case(A, "challenge backed by shared memory",
     "const shared = new WebAssembly.Memory({initial: 1, maximum: 1, shared: true}).buffer;"
     " return F.outcome(() => F.create(F.creation({challenge: new Uint8Array(shared, 0, 32)})));")
# The order a page's getters see the members read in (WebIDL §3.2.17: lexicographic), each once.
READ_ORDER = ("const seen = []; const o = F.creation(); const spy = {};"
              " for (const k of Object.keys(o).concat(['timeout', 'hints', 'attestation', 'attestationFormats',"
              " 'excludeCredentials', 'extensions'])) Object.defineProperty(spy, k, {enumerable: true,"
              " get() { seen.push(k); return o[k]; }});"
              " await F.settle(F.create(spy)); return seen;")
case(A, "the members are read in lexicographic order, once each", READ_ORDER,
     exception=Exception_("spec", "Chromium 156 never reads attestationFormats (it has no such member); passkeyd "
                          "reads it in its lexicographic place (WebAuthn L3 §5.4, WebIDL §3.2.17).",
                          lambda oracle: sorted(oracle + ["attestationFormats"])))
case(A, "a getter that throws: its exception, as it is",
     "const o = F.creation(); Object.defineProperty(o, 'challenge', {get() { throw new RangeError('mine'); }});"
     " return F.outcome(() => F.create(o));")
case(A, "a conversion error comes before an aborted signal",
     "return F.outcome(() => navigator.credentials.create({publicKey: {}, signal: AbortSignal.abort()}));")
case(A, "an aborted signal comes before another site's rp.id",
     "return F.outcome(() => F.create(F.creation({rp: {name: 'x', id: 'example.com'}}), {signal: AbortSignal.abort()}));")
case(A, "the promise is the realm's own, whatever window.Promise is now",
     "const Original = Promise; window.Promise = class extends Original {};"
     " try { const p = navigator.credentials.create({publicKey: F.creation()});"
     " const kind = [Object.getPrototypeOf(p) === Original.prototype]; await p.catch(() => 0); return kind; }"
     " finally { window.Promise = Original; }")
case(A, "a patched Promise.prototype.then is not called",
     "const original = Promise.prototype.then; let calls = 0;"
     " Promise.prototype.then = function (...a) { calls++; return original.apply(this, a); };"
     " let created; try { created = await F.outcome(async () => F.described(await F.create(F.creation()))); }"
     " finally { Promise.prototype.then = original; }"
     " return {created: F.shape(created), calls};")

# -- IDL conversion: get -------------------------------------------------------------------
A = "IDL get"
case(A, "a valid sign-in", got("{}"))
case(A, "unknown mediation", "return F.outcome(() => F.get({}, {mediation: 'bogus'}));")
case(A, "challenge missing",
     "const o = F.request({allowCredentials: await F.allow()}); delete o.challenge;"
     " return F.outcome(() => navigator.credentials.get({publicKey: o}));")
case(A, "allowCredentials an object", "return F.outcome(() => F.get({allowCredentials: {}}));")
case(A, "allowCredentials member with a string id",
     "return F.outcome(() => F.get({allowCredentials: [{type: 'public-key', id: 'abc'}]}));")
case(A, "timeout negative wraps", got("{timeout: -1}"))
case(A, "timeout a numeric string", got("{timeout: '30000'}"))
case(A, "timeout 1 ms is corrected into the client's range", got("{timeout: 1}"), exception=NO_CLAMP)
case(A, "rpId of another site", "return F.outcome(() => F.get({rpId: 'example.com'}));")
case(A, "unknown userVerification and hints are ignored", got("{userVerification: 'bogus', hints: ['bogus']}"))
case(A, "signal already aborted", "return F.outcome(() => F.get({}, {signal: AbortSignal.abort()}));")
case(A, "publicKey a string", "return F.outcome(() => navigator.credentials.get({publicKey: 'x'}));")
case(A, "no publicKey", "return F.outcome(() => navigator.credentials.get({}));")
case(A, "mediation silent",
     "return F.outcome(() => F.get({}, {mediation: 'silent'}));",
     exception=Exception_("oracle", "the virtual authenticator simulates the touch itself; a sign-in always needs the "
                          "person's presence, which silent mediation may not ask for, so passkeyd ends it with "
                          "NotAllowedError (docs/browser-protocol.md).", error("NotAllowedError")))
case(A, "get(null)", "return F.outcome(() => navigator.credentials.get(null));")
case(A, "a discoverable credential's user handle",
     "return F.outcome(async () => { const c = await F.create(F.resident());"
     " const a = await F.get({allowCredentials: [{type: 'public-key', id: c.rawId}]});"
     " return F.shape(a.response.userHandle); });")
case(A, "allowCredentials member without id",
     "return F.outcome(() => F.get({allowCredentials: [{type: 'public-key'}]}));")

# -- extensions (WebAuthn L3 §9, §10; CTAP 2.1 §12) ----------------------------------------
A = "extensions"
case(A, "prf at registration", created("{extensions: {prf: {}}}"))
case(A, "prf evalByCredential at registration",
     "return F.outcome(() => F.create(F.creation({extensions: {prf: {evalByCredential: {}}}})));")
case(A, "prf eval at sign-in",
     "return F.outcome(async () => { const c = await F.create(F.creation({extensions: {prf: {}}}));"
     " const a = await F.get({allowCredentials: [{type: 'public-key', id: c.rawId}],"
     " extensions: {prf: {eval: {first: F.rand(32)}}}});"
     " return F.shape(a.getClientExtensionResults()); });")
case(A, "prf evalByCredential with a key that is not base64url",
     "return F.outcome(() => F.get({extensions: {prf: {evalByCredential: {'***': {first: F.rand(32)}}}}}));")
case(A, "prf evalByCredential naming no allowed credential",
     "return F.outcome(() => F.get({extensions: {prf: {evalByCredential: {AAAA: {first: F.rand(32)}}}}}));")
case(A, "prf evalByCredential with no allowCredentials",
     "return F.outcome(() => navigator.credentials.get({publicKey: F.request({extensions: {prf: "
     "{evalByCredential: {AAAA: {first: F.rand(32)}}}}})}));")
case(A, "prf eval first a string",
     "return F.outcome(() => F.get({extensions: {prf: {eval: {first: 'x'}}}}));")
case(A, "appid of another site", "return F.outcome(() => F.get({extensions: {appid: 'https://example.com/appid'}}));")
case(A, "appidExclude of another site",
     "return F.outcome(() => F.create(F.creation({extensions: {appidExclude: 'https://example.com/appid'}})));")
case(A, "unknown credentialProtectionPolicy",
     "return F.outcome(async () => F.described(await F.create(F.creation("
     "{extensions: {credentialProtectionPolicy: 'bogus'}}))));")
case(A, "credProps", created("{extensions: {credProps: true}}"))
case(A, "credProps of a discoverable credential",
     "return F.outcome(async () => F.create(F.resident({extensions: {credProps: true}}))"
     ".then((c) => c.getClientExtensionResults()));")
case(A, "largeBlob support at registration",
     "return F.outcome(async () => F.create(F.resident({extensions: {largeBlob: {support: 'preferred'}}}))"
     ".then((c) => c.getClientExtensionResults()));")
case(A, "largeBlob read at registration",
     "return F.outcome(() => F.create(F.resident({extensions: {largeBlob: {read: true}}})));")
case(A, "largeBlob read and write together",
     "return F.outcome(() => F.get({extensions: {largeBlob: {read: true, write: F.rand(8)}}}));")
case(A, "largeBlob support at sign-in",
     "return F.outcome(() => F.get({extensions: {largeBlob: {support: 'required'}}}));")
case(A, "largeBlob write with two allowed credentials",
     "const allow = await F.allow(); return F.outcome(() => F.get({allowCredentials: [...allow, {type: 'public-key', "
     "id: F.rand(16)}], extensions: {largeBlob: {write: F.rand(8)}}}));")
case(A, "prf eval with two inputs",
     "return F.outcome(async () => { const c = await F.create(F.creation({extensions: {prf: {}}}));"
     " const a = await F.get({allowCredentials: [{type: 'public-key', id: c.rawId}],"
     " extensions: {prf: {eval: {first: F.rand(32), second: F.rand(32)}}}});"
     " return F.shape(a.getClientExtensionResults()); });")
case(A, "credProps false asks nothing", created("{extensions: {credProps: false}}"))
case(A, "an appid of this site over http",
     "return F.outcome(async () => F.shape((await F.get({extensions: {appid: location.origin}}))"
     ".getClientExtensionResults()));")
case(A, "an unknown extension is ignored", created("{extensions: {bogus: 1}}"))
case(A, "credBlob at registration",
     "return F.outcome(async () => F.create(F.resident({extensions: {credBlob: F.rand(8).buffer}}))"
     ".then((c) => c.getClientExtensionResults()));")
PROTECT = ("return F.outcome(async () => F.create(F.resident({authenticatorSelection: {residentKey: 'required', "
           "userVerification: '%s'}, extensions: {credentialProtectionPolicy: '%s'%s}}))"
           ".then((c) => c.getClientExtensionResults()));")
case(A, "credentialProtectionPolicy required, enforced, with user verification required",
     PROTECT % ("required", "userVerificationRequired", ", enforceCredentialProtectionPolicy: true"))
case(A, "credentialProtectionPolicy required, enforced, with user verification preferred",
     PROTECT % ("preferred", "userVerificationRequired", ", enforceCredentialProtectionPolicy: true"))
case(A, "credentialProtectionPolicy required with user verification preferred",
     PROTECT % ("preferred", "userVerificationRequired", ""))
case(A, "credentialProtectionPolicy required with user verification discouraged",
     PROTECT % ("discouraged", "userVerificationRequired", ""))
case(A, "credentialProtectionPolicy optional, enforced",
     PROTECT % ("preferred", "userVerificationOptional", ", enforceCredentialProtectionPolicy: true"))
case(A, "credentialProtectionPolicy with a credential ID list, enforced",
     PROTECT % ("discouraged", "userVerificationOptionalWithCredentialIDList", ", enforceCredentialProtectionPolicy: true"))
case(A, "credentialProtectionPolicy optional with a credential ID list",
     "return F.outcome(async () => F.described(await F.create(F.creation({extensions: {credentialProtectionPolicy: "
     "'userVerificationOptionalWithCredentialIDList'}}))));")
case(A, "credBlob too long for the authenticator",
     "return F.outcome(async () => F.create(F.resident({extensions: {credBlob: F.rand(64).buffer}}))"
     ".then((c) => c.getClientExtensionResults()));")
case(A, "getCredBlob with nothing stored",
     "return F.outcome(async () => { const c = await F.create(F.resident({}));"
     " const a = await F.get({allowCredentials: [{type: 'public-key', id: c.rawId}], extensions: {getCredBlob: true}});"
     " const r = a.getClientExtensionResults();"
     " return [Object.keys(r), r.getCredBlob instanceof ArrayBuffer, r.getCredBlob && r.getCredBlob.byteLength]; });")
case(A, "capability values for the extensions",
     "const c = await PublicKeyCredential.getClientCapabilities(); return ['extension:credBlob', 'extension:getCredBlob',"
     " 'extension:credentialProtectionPolicy', 'extension:enforceCredentialProtectionPolicy',"
     " 'extension:hmacCreateSecret', 'extension:cmtgKey', 'extension:crossDeviceFallbackUrl', 'extension:payment',"
     " 'immediateGet', 'hybridTransport'].map((k) => [k, c[k]]);")
case(A, "hmacCreateSecret at registration",
     "return F.outcome(async () => F.create(F.creation({extensions: {hmacCreateSecret: true}}))"
     ".then((c) => c.getClientExtensionResults()));")

# -- parse*FromJSON (WebAuthn L3 §5.1.11, §5.1.12) -----------------------------------------
A = "parseFromJSON"
CREATION_JSON = ("{rp: {name: 'x'}, user: {id: 'AAAA', name: 'n', displayName: 'd'}, challenge: 'AAAA', "
                 "pubKeyCredParams: [{type: 'public-key', alg: -7}]")
case(A, "creation defaults filled",
     f"return F.outcome(() => F.shape(PublicKeyCredential.parseCreationOptionsFromJSON({CREATION_JSON}}})));",
     exception=Exception_("spec", ATTESTATION_FORMATS, with_members(attestationFormats=[])))
case(A, "creation unknown members dropped",
     f"return F.outcome(() => F.shape(PublicKeyCredential.parseCreationOptionsFromJSON({CREATION_JSON}, "
     "bogus: 1, user: {id: 'AAAA', name: 'n', displayName: 'd', extra: 2}})));",
     exception=Exception_("spec", ATTESTATION_FORMATS, with_members(attestationFormats=[])))
case(A, "creation with every member",
     f"return F.outcome(() => F.shape(PublicKeyCredential.parseCreationOptionsFromJSON({CREATION_JSON}, "
     "timeout: 1000, excludeCredentials: [{type: 'public-key', id: 'AAAA', transports: ['usb']}], "
     "authenticatorSelection: {residentKey: 'required'}, hints: ['security-key'], attestation: 'direct', "
     "attestationFormats: ['packed'], extensions: {credProps: true, prf: {eval: {first: 'AAAA'}}, "
     "largeBlob: {support: 'preferred'}}})));",
     exception=Exception_("spec", ATTESTATION_FORMATS + " Chromium also leaves out AuthenticatorSelectionCriteria's "
                          "userVerification = \"preferred\" (L3 §5.4.4).",
                          with_members(attestationFormats=["string"], authenticatorSelection__userVerification="string")))
case(A, "creation challenge not base64url",
     "return F.outcome(() => PublicKeyCredential.parseCreationOptionsFromJSON("
     f"{{...{CREATION_JSON}}}, challenge: '***'}}));")
case(A, "creation user missing",
     f"const o = {CREATION_JSON}}}; delete o.user;"
     " return F.outcome(() => PublicKeyCredential.parseCreationOptionsFromJSON(o));")
case(A, "creation options not an object",
     "return F.outcome(() => PublicKeyCredential.parseCreationOptionsFromJSON(5));")
case(A, "request defaults filled",
     "return F.outcome(() => F.shape(PublicKeyCredential.parseRequestOptionsFromJSON({challenge: 'AAAA'})));")
case(A, "request unknown members dropped and descriptors decoded",
     "return F.outcome(() => F.shape(PublicKeyCredential.parseRequestOptionsFromJSON({challenge: 'AAAA', bogus: 1, "
     "allowCredentials: [{type: 'public-key', id: 'AAAA', extra: 1}], rpId: 'localhost'})));")
case(A, "request extensions decoded",
     "return F.outcome(() => F.shape(PublicKeyCredential.parseRequestOptionsFromJSON({challenge: 'AAAA', "
     "extensions: {appid: 'https://localhost', prf: {evalByCredential: {AAAA: {first: 'AAAA'}}}}})));",
     exception=Exception_("spec", "Chromium 156 adds credProps: false to every parsed extensions dictionary; "
                          "WebAuthn L3 §10.1.3 gives credProps no default, so passkeyd leaves it absent.",
                          with_members(extensions__credProps=None)))
case(A, "a record's entries, a __proto__ key among them",
     "const p = PublicKeyCredential.parseRequestOptionsFromJSON({challenge: 'AAAA', extensions: {prf: {evalByCredential:"
     " JSON.parse('{\"__proto__\": {\"first\": \"AAAA\"}, \"AAAA\": {\"first\": \"AAAA\"}}')}}});"
     " const r = p.extensions.prf.evalByCredential; return [Object.getPrototypeOf(r) === Object.prototype,"
     " Object.keys(r), F.shape(Object.getOwnPropertyDescriptor(r, '__proto__')?.value)];")
case(A, "request challenge missing",
     "return F.outcome(() => PublicKeyCredential.parseRequestOptionsFromJSON({}));")
case(A, "request id not base64url",
     "return F.outcome(() => PublicKeyCredential.parseRequestOptionsFromJSON({challenge: 'AAAA', "
     "allowCredentials: [{type: 'public-key', id: 'A+A/'}]}));")
case(A, "parsed options register",
     "return F.outcome(async () => F.described(await F.create(PublicKeyCredential.parseCreationOptionsFromJSON("
     "{rp: {name: 'x'}, user: {id: F.b64(F.rand(8)), name: 'p', displayName: 'P'}, challenge: 'AAAAAAAAAAAAAAAAAAAAAA', "
     "pubKeyCredParams: [{type: 'public-key', alg: -7}]}))));")

# -- the returned objects (WebAuthn L3 §5.1, §5.2) -----------------------------------------
A = "returned objects"
case(A, "structuredClone of a credential",
     "const c = await F.credential(); return F.outcome(() => structuredClone(c));")
case(A, "structuredClone of a response",
     "const c = await F.credential(); return F.outcome(() => structuredClone(c.response));")
case(A, "navigator.credentials.store(credential)",
     "const c = await F.credential(); return F.outcome(() => navigator.credentials.store(c));")
case(A, "an assertion getter on an attestation response",
     "const c = await F.credential(); const g = Object.getOwnPropertyDescriptor("
     "AuthenticatorAssertionResponse.prototype, 'signature').get; return F.outcome(() => g.call(c.response));")
case(A, "an attestation method on an assertion response",
     "const a = await F.get(); return F.outcome(() => AuthenticatorAttestationResponse.prototype.getTransports"
     ".call(a.response));")
case(A, "a PublicKeyCredential getter on a plain object",
     "const g = Object.getOwnPropertyDescriptor(PublicKeyCredential.prototype, 'rawId').get;"
     " return F.outcome(() => g.call({}));")
case(A, "id on an object made from the prototype",
     "return F.outcome(() => Object.create(PublicKeyCredential.prototype).id);")
case(A, "registration toJSON shape", "const c = await F.credential(); return F.shape(c.toJSON());")
case(A, "assertion toJSON shape", "const a = await F.get(); return F.shape(a.toJSON());")
case(A, "registration response methods",
     "const r = (await F.credential()).response; return {alg: r.getPublicKeyAlgorithm(), key: F.shape(r.getPublicKey()),"
     " data: F.shape(r.getAuthenticatorData()), transports: r.getTransports().every((t) => typeof t === 'string'),"
     " object: F.shape(r.attestationObject), same: r.getAuthenticatorData() === r.getAuthenticatorData()};")
case(A, "assertion response members",
     "const a = await F.get(); const r = a.response; return {tag: Object.prototype.toString.call(r),"
     " data: F.shape(r.authenticatorData), signature: F.shape(r.signature), userHandle: F.shape(r.userHandle),"
     " sameObject: a.response === a.response && a.rawId === a.rawId};")
case(A, "own properties and JSON.stringify",
     "const c = await F.credential(); return {own: Reflect.ownKeys(c).length, response: Reflect.ownKeys(c.response).length,"
     " json: JSON.stringify(c) === JSON.stringify(c.toJSON()), fresh: c.getClientExtensionResults() !== "
     "c.getClientExtensionResults()};")
case(A, "instanceof the browser's interfaces",
     "const c = await F.credential(); return [c instanceof PublicKeyCredential, c instanceof Credential,"
     " c.response instanceof AuthenticatorAttestationResponse, c.response instanceof AuthenticatorResponse];")
case(A, "registration toJSON with prf outputs",
     "return F.outcome(async () => F.shape((await F.create(F.creation({extensions: {prf: {}, credProps: true}})))"
     ".toJSON().clientExtensionResults));")
case(A, "assertion toJSON with prf results",
     "return F.outcome(async () => { const c = await F.create(F.creation({extensions: {prf: {}}}));"
     " const a = await F.get({allowCredentials: [{type: 'public-key', id: c.rawId}],"
     " extensions: {prf: {eval: {first: F.rand(32)}}}}); return F.shape(a.toJSON().clientExtensionResults); });")
case(A, "the interfaces' prototype members",
     "return [PublicKeyCredential, AuthenticatorAttestationResponse, AuthenticatorAssertionResponse,"
     " AuthenticatorResponse, Credential].map((i) => Reflect.ownKeys(i.prototype).map(String));")
case(A, "a credential's constructor and prototype chain",
     "const c = await F.credential(); return [c.constructor === PublicKeyCredential,"
     " Object.getPrototypeOf(Object.getPrototypeOf(c)) === Credential.prototype, typeof c, Array.isArray(c),"
     " Object.isExtensible(c), Object.prototype.toString.call(c.response)];")

# -- functions that look native (WebIDL §3.7) ----------------------------------------------
A = "native functions"
case(A, "create", "return F.looks(navigator.credentials.create);")
case(A, "get", "return F.looks(navigator.credentials.get);")
case(A, "create's property", "return F.descriptor(CredentialsContainer.prototype, 'create');")
case(A, "getClientCapabilities", "return F.looks(PublicKeyCredential.getClientCapabilities);")
case(A, "parseCreationOptionsFromJSON", "return F.looks(PublicKeyCredential.parseCreationOptionsFromJSON);")
case(A, "parseRequestOptionsFromJSON", "return F.looks(PublicKeyCredential.parseRequestOptionsFromJSON);")
case(A, "isUserVerifyingPlatformAuthenticatorAvailable",
     "return F.looks(PublicKeyCredential.isUserVerifyingPlatformAuthenticatorAvailable);")
case(A, "isConditionalMediationAvailable", "return F.looks(PublicKeyCredential.isConditionalMediationAvailable);")
case(A, "signalUnknownCredential", "return F.looks(PublicKeyCredential.signalUnknownCredential);")
case(A, "rawId getter",
     "return F.looks(Object.getOwnPropertyDescriptor(PublicKeyCredential.prototype, 'rawId').get);")
case(A, "getClientExtensionResults", "return F.looks(PublicKeyCredential.prototype.getClientExtensionResults);")
case(A, "signature getter",
     "return F.looks(Object.getOwnPropertyDescriptor(AuthenticatorAssertionResponse.prototype, 'signature').get);")
case(A, "Function.prototype.toString itself", "return F.looks(Function.prototype.toString);")
case(A, "toString of toString's bound copy",
     "return Function.prototype.toString.call(Function.prototype.toString.bind(null));")
case(A, "illegal invocation with a foreign this runs no ceremony",
     "return F.outcome(() => navigator.credentials.create.call({}, {publicKey: F.resident()}));", counts=True)
case(A, "a foreign this made from CredentialsContainer.prototype runs no ceremony",
     "return F.outcome(() => navigator.credentials.create.call(Object.create(CredentialsContainer.prototype),"
     " {publicKey: F.resident()}));", counts=True)
case(A, "the counting itself: a discoverable registration is one more",
     "return F.outcome(async () => F.described(await F.create(F.resident())));", counts=True)
case(A, "get with a foreign this",
     "const o = {publicKey: F.request({allowCredentials: await F.allow()})};"
     " return F.outcome(() => navigator.credentials.get.call(Object.create(CredentialsContainer.prototype), o));")
case(A, "the static members of PublicKeyCredential",
     "return Object.getOwnPropertyNames(PublicKeyCredential).filter((k) => typeof PublicKeyCredential[k] === 'function')"
     ".sort();")
case(A, "Function.prototype.toString on a plain object",
     "return F.outcome(() => Function.prototype.toString.call({}));")
case(A, "the statics' property", "return F.descriptor(PublicKeyCredential, 'parseRequestOptionsFromJSON');")
case(A, "the rawId accessor's property", "return F.descriptor(PublicKeyCredential.prototype, 'rawId');")
case(A, "the members of CredentialsContainer.prototype",
     "return Reflect.ownKeys(CredentialsContainer.prototype).map(String);")
case(A, "a static with a foreign this still answers",
     "return F.settle(PublicKeyCredential.getClientCapabilities.call(5));")

# -- the Signal API (WebAuthn L3 §5.1.9) -----------------------------------------------------
A = "signals"
case(A, "signalUnknownCredential", "return F.settle(PublicKeyCredential.signalUnknownCredential("
     "{rpId: location.hostname, credentialId: 'AAAA'}));")
case(A, "signalUnknownCredential without credentialId",
     "return F.settle(PublicKeyCredential.signalUnknownCredential({rpId: location.hostname}));")
case(A, "signalAllAcceptedCredentials with a string for the list",
     "return F.settle(PublicKeyCredential.signalAllAcceptedCredentials({rpId: location.hostname, userId: 'AAAA',"
     " allAcceptedCredentialIds: 'AAAA'}));")
case(A, "signalCurrentUserDetails", "return F.settle(PublicKeyCredential.signalCurrentUserDetails("
     "{rpId: location.hostname, userId: 'AAAA', name: 'n', displayName: 'd'}));")
case(A, "signalCurrentUserDetails without displayName",
     "return F.settle(PublicKeyCredential.signalCurrentUserDetails({rpId: location.hostname, userId: 'AAAA', name: 'n'}));")

# -- the page's own listeners see none of the extension's traffic ---------------------------
A = "private channel"
case(A, "no message event during a registration and a sign-in",
     "messagesSeen.length = 0; await F.create(F.creation()); await F.get(); await PublicKeyCredential"
     ".getClientCapabilities(); return messagesSeen;")
case(A, "no channel events reached the page", "return messagesSeen.filter((m) => m.endsWith('event'));")
case(A, "a message posted by the page answers nothing",
     "window.postMessage(JSON.stringify({passkeyd: 'to-page', type: 'result', id: 1}), '*');"
     " return F.outcome(async () => F.described(await F.get()));")

# -- frames ------------------------------------------------------------------------------------
A = "frames"
case(A, "a registration in a new same-origin about:blank frame, at once",
     "const frame = document.createElement('iframe'); document.body.append(frame);"
     " try { const w = frame.contentWindow; const o = F.creation();"
     " return await Promise.race([F.outcome(async () => { const c = await w.navigator.credentials.create({publicKey: o});"
     " return [c instanceof w.PublicKeyCredential, c.type]; }),"
     " new Promise((r) => setTimeout(() => r('still pending after 20 s'), 20000))]); } finally { frame.remove(); }")
case(A, "another realm's toString on this realm's functions",
     "const frame = document.createElement('iframe'); document.body.append(frame);"
     " try { const t = frame.contentWindow.Function.prototype.toString;"
     " return [navigator.credentials.create, PublicKeyCredential.getClientCapabilities, Function.prototype.toString,"
     " Object.getOwnPropertyDescriptor(PublicKeyCredential.prototype, 'rawId').get].map((f) => t.call(f)); }"
     " finally { frame.remove(); }")
case(A, "a sign-in in a same-origin frame once it loaded",
     "const frame = document.createElement('iframe'); frame.src = location.href + '?frame';"
     " const loaded = new Promise((r) => frame.onload = r); document.body.append(frame); await loaded;"
     " try { const w = frame.contentWindow; const allow = await F.allow();"
     " return await F.outcome(async () => { const a = await w.navigator.credentials.get({publicKey: w.F.request("
     "{allowCredentials: allow})}); return [a instanceof w.PublicKeyCredential, a.response instanceof"
     " w.AuthenticatorAssertionResponse]; }); } finally { frame.remove(); }")
FRAME_CREATE = ("return F.outcome(async () => F.described(await F.create(F.creation())));")
# The frame signs in with the top page's credential (the same RP ID, localhost), named by its id.
FRAME_GET = ("const id = F.b64((await F.credential()).rawId); return F.inFrame(ALLOW, `return F.outcome(async () =>"
             " F.described(await navigator.credentials.get({publicKey: PublicKeyCredential.parseRequestOptionsFromJSON("
             "{challenge: 'AAAAAAAAAAAAAAAAAAAAAA', userVerification: 'discouraged', allowCredentials: [{type: 'public-key',"
             " id: '${id}'}]})})));`);")
case(A, "a cross-origin frame without allow= registers nothing",
     f"return F.inFrame('', {json.dumps(FRAME_CREATE)});")
case(A, "a cross-origin frame allowed to create, without a gesture",
     f"return F.inFrame('publickey-credentials-create', {json.dumps(FRAME_CREATE)});")
case(A, "a cross-origin frame allowed to get signs in", "const ALLOW = 'publickey-credentials-get'; " + FRAME_GET)
case(A, "a cross-origin frame without allow= cannot sign in", "const ALLOW = ''; " + FRAME_GET)
case(A, "a cross-origin frame's permissions policy, as the frame sees it",
     "return F.inFrame('publickey-credentials-get', \"return ['publickey-credentials-get', "
     "'publickey-credentials-create'].map((f) => document.featurePolicy.allowsFeature(f));\");")

# -- getClientCapabilities (WebAuthn L3 §5.1.7) ---------------------------------------------
A = "capabilities"
case(A, "getClientCapabilities keys",
     "return Object.keys(await PublicKeyCredential.getClientCapabilities()).sort();")
case(A, "getClientCapabilities value types",
     "return Object.values(await PublicKeyCredential.getClientCapabilities()).every((v) => typeof v === 'boolean');")
case(A, "the extensions passkeyd serves are reported",
     "const c = await PublicKeyCredential.getClientCapabilities(); return ['extension:prf', 'extension:largeBlob',"
     " 'extension:credProps'].map((k) => c[k]);")
case(A, "isUserVerifyingPlatformAuthenticatorAvailable",
     "return await PublicKeyCredential.isUserVerifyingPlatformAuthenticatorAvailable();")
case(A, "isConditionalMediationAvailable", "return await PublicKeyCredential.isConditionalMediationAvailable();",
     exception=Exception_("oracle", "headless Chromium with the virtual authenticator has no autofill UI and answers "
                          "false; desktop Chromium answers true, and so does passkeyd, which serves conditional "
                          "mediation.", True))

# -- concurrent requests --------------------------------------------------------------------
A = "concurrency"
case(A, "a second sign-in while one is pending",
     "const controller = new AbortController(); const first = F.settle(F.get({}, {signal: controller.signal}));"
     " await new Promise((r) => setTimeout(r, 300)); const second = await F.settle(F.get());"
     " controller.abort(); return {second, first: await first};", hold=True)
case(A, "a registration while a sign-in is pending",
     "const controller = new AbortController(); const first = F.settle(F.get({}, {signal: controller.signal}));"
     " await new Promise((r) => setTimeout(r, 300)); const second = await F.settle(F.create(F.creation()));"
     " controller.abort(); return {second, first: await first};", hold=True)

CONDITIONAL = ("const controller = new AbortController();"
               " const conditional = F.settle(navigator.credentials.get({publicKey: F.request(),"
               " mediation: 'conditional', signal: controller.signal}));"
               " const early = await Promise.race([conditional, new Promise((r) => setTimeout(() => r('pending'), 1500))]);")
NO_PICK = ("Chromium's virtual authenticator answers a conditional request at once, with no pick: NotAllowedError "
           "when it holds no discoverable credential, an assertion when it holds one. A real Chromium keeps the "
           "request pending until the person picks a suggestion or the page aborts; so does passkeyd.")
case(A, "a conditional request waits for the person's pick",
     CONDITIONAL + " controller.abort(); return {early, after: await conditional};",
     exception=Exception_("oracle", NO_PICK, {"early": "pending", "after": error("AbortError: signal is aborted without reason")}))
case(A, "a sign-in while a conditional request is pending",
     CONDITIONAL + " const modal = await F.settle(F.get()); controller.abort();"
     " return {early, modal, conditional: await conditional};",
     exception=Exception_("oracle", NO_PICK + " The modal request goes ahead and the conditional one ends with "
                          "AbortError (it gives way, as in Chromium, which cancels a pending conditional request "
                          "for a new one).", {"early": "pending", "modal": {"value": "object"},
                                               "conditional": error("AbortError: A new request replaced this one.")}))


def areas() -> dict[str, int]:
    counts: dict[str, int] = {}
    for c in CASES:
        counts[c.area] = counts.get(c.area, 0) + 1
    return counts


# -- running them --------------------------------------------------------------------------


MESSAGE_AREAS = {"extensions", "parseFromJSON", "returned objects", "concurrency"}
# ...but for structuredClone, whose DataCloneError names a Proxy "#<PublicKeyCredential>" where
# Chromium says "PublicKeyCredential object" (docs/browser-fidelity.md, known differences).
NAMES_ONLY = {"structuredClone of a credential", "structuredClone of a response"}


def run_case(side, page, c: Case):
    """The case's outcome on `page`; with `counts`, with the discoverable credentials it added."""
    before = side.stored(page) if c.counts else 0
    # DOMException messages are compared where page.js, not the host, raises them.
    messages = "true" if c.area in MESSAGE_AREAS and c.name not in NAMES_ONLY else "false"
    outcome = page.evaluate(f"(async () => {{ window.fidelityMessages = {messages}; {c.js} }})()", timeout=90)
    if c.counts:
        outcome = {"outcome": outcome, "stored": side.stored(page) - before}
    return outcome


def empty_extension() -> str:
    """An extension that does nothing: the oracle's Chromium is launched as the subject's is."""
    folder = tempfile.mkdtemp(prefix="passkeyd-fidelity-empty-")
    with open(os.path.join(folder, "manifest.json"), "w") as f:
        json.dump({"manifest_version": 3, "name": "empty", "version": "1"}, f)
    return folder


class Oracle:
    """Chromium's own WebAuthn, answered by a CDP virtual authenticator."""

    def __init__(self, extra: list[str] = ()):
        self.extension = empty_extension()
        self.browser = Chromium(self.extension, extra=extra)

    def page(self, url: str) -> ChromiumPage:
        page = self.browser.new_page(url)
        page.send("Page.bringToFront")
        page.send("WebAuthn.enable", {"enableUI": False})
        self.authenticator = page.send("WebAuthn.addVirtualAuthenticator",
                                       {"options": VIRTUAL_AUTHENTICATOR})["authenticatorId"]
        return page

    def hold(self, page, on: bool) -> None:
        """Presence no longer simulated: a ceremony waits (until aborted)."""
        page.send("WebAuthn.setAutomaticPresenceSimulation",
                  {"authenticatorId": self.authenticator, "enabled": not on})

    def prepare(self, page) -> None:
        """Room for the case's discoverable credentials: Chromium's virtual CTAP2 device stores
        three at most (then registrations fail NotAllowedError), so those of earlier cases go;
        non-discoverable ones (the cases' shared credential) stay."""
        found = page.send("WebAuthn.getCredentials", {"authenticatorId": self.authenticator})["credentials"]
        for credential in found:
            if credential.get("isResidentCredential"):
                page.send("WebAuthn.removeCredential", {"authenticatorId": self.authenticator,
                                                        "credentialId": credential["credentialId"]})

    def stored(self, page) -> int:
        """The discoverable credentials the virtual authenticator holds."""
        found = page.send("WebAuthn.getCredentials", {"authenticatorId": self.authenticator})["credentials"]
        return sum(1 for c in found if c.get("isResidentCredential"))

    def close(self) -> None:
        self.browser.close()
        shutil.rmtree(self.extension, ignore_errors=True)
