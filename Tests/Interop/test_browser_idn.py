"""A hostile page under an IDN public suffix, in the real browser: Debian's headless Chromium
loads https://shop.公司.cn (`shop.xn--55qx5d.cn`, resolved to a local TLS server whose
certificate the browser is told to trust) and asks for the public suffix `公司.cn` itself as its
RP ID, in both spellings, to register and to sign in. A credential scoped to the suffix would be
one every site under it could use (WebAuthn L3 §5.1.3 step 8, §5.1.4.1 step 7: the RP ID must be
a registrable domain suffix of the origin's effective domain, and no public suffix is; URL
Standard §3.5 hands the check the host in its ASCII form).

The same page runs in two Chromiums, as the differential test runs its battery
(test_browser_fidelity.py): Chromium's own WebAuthn with a CDP virtual authenticator (the oracle)
and Chromium with the passkeyd extension and host against a real passkeyd (the subject). The
outcomes must agree case by case, and each is asserted on its own: SecurityError for the suffix,
a credential for the page's own host (so the setup itself is shown to work), and nothing of the
suffix stored in passkeyd."""

from __future__ import annotations

import datetime
import http.server
import json
import ssl
import tempfile
import threading
from base64 import urlsafe_b64encode
from hashlib import sha256
from pathlib import Path

import passkeyd.firefox
import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from browser_driver import chromium_path, firefox_path
from browser_flows import Session
from fidelity_cases import Oracle
from passkeyd_pin import passkeyctl


HOST = "shop.xn--55qx5d.cn"  # shop.公司.cn
SUFFIX = "xn--55qx5d.cn"  # 公司.cn, a rule of the public suffix list

# What the page asks, each resolving to "resolved" or the error's name.
CREATE = """navigator.credentials.create({publicKey: {rp: {id: %s, name: "shop"},
  user: {id: new Uint8Array([1, 2, 3]), name: "buyer", displayName: "Buyer"},
  challenge: new Uint8Array(32), pubKeyCredParams: [{type: "public-key", alg: -7}],
  authenticatorSelection: {residentKey: "required", userVerification: "discouraged"}, timeout: 20000}})
  .then(() => "resolved", (e) => e.name)"""
GET = """navigator.credentials.get({publicKey: {rpId: %s, challenge: new Uint8Array(32),
  userVerification: "discouraged", timeout: 20000}}).then(() => "resolved", (e) => e.name)"""

# (what the page does, the RP ID it names, what it must come to). The page's own host first: the
# credential it makes is the one a suffix-scoped sign-in would have to find.
CASES = [
    ("create", HOST, "resolved"),
    ("get", HOST, "resolved"),
    ("create", "公司.cn", "SecurityError"),
    ("create", SUFFIX, "SecurityError"),
    ("create", "公司.CN", "SecurityError"),
    ("get", "公司.cn", "SecurityError"),
    ("get", SUFFIX, "SecurityError"),
]


class TLSSite:
    """A page over https on 127.0.0.1, with a certificate for HOST made for this test; Chromium is
    told to trust that one key (--ignore-certificate-errors-spki-list, which leaves the page a
    secure one, with no certificate error) and to resolve HOST here (--host-resolver-rules)."""

    def __init__(self):
        self.folder = tempfile.TemporaryDirectory(prefix="passkeyd-idn-")
        key = ec.generate_private_key(ec.SECP256R1())
        name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, HOST)])
        now = datetime.datetime.now(datetime.timezone.utc)
        certificate = (x509.CertificateBuilder().subject_name(name).issuer_name(name)
                       .public_key(key.public_key()).serial_number(x509.random_serial_number())
                       .not_valid_before(now - datetime.timedelta(days=1))
                       .not_valid_after(now + datetime.timedelta(days=2))
                       .add_extension(x509.SubjectAlternativeName([x509.DNSName(HOST)]), critical=False)
                       .sign(key, hashes.SHA256()))
        folder = Path(self.folder.name)
        (folder / "cert.pem").write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
        (folder / "key.pem").write_bytes(key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()))
        spki = key.public_key().public_bytes(serialization.Encoding.DER,
                                             serialization.PublicFormat.SubjectPublicKeyInfo)
        self.spki = urlsafe_b64encode(sha256(spki).digest()).decode().replace("-", "+").replace("_", "/")

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                body = b"<!doctype html><title>shop</title><p>shop"
                self.send_response(200)
                self.send_header("Content-Type", "text/html")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(folder / "cert.pem", folder / "key.pem")
        # The handshake in the handler's thread, not in accept(): a connection that never
        # completes one (a browser's preconnect) must not hold up the others.
        self.server.socket = context.wrap_socket(self.server.socket, server_side=True,
                                                 do_handshake_on_connect=False)
        self.url = f"https://{HOST}:{self.server.server_address[1]}/"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    @property
    def flags(self) -> list[str]:
        return [f"--host-resolver-rules=MAP {HOST} 127.0.0.1", f"--ignore-certificate-errors-spki-list={self.spki}"]

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.folder.cleanup()


@pytest.fixture(scope="module")
def site():
    s = TLSSite()
    yield s
    s.close()


def outcomes(page) -> list[str]:
    # The page is where the test thinks it is: the IDN host, a secure context.
    assert page.evaluate("[location.hostname, isSecureContext]") == [HOST, True]
    return [page.evaluate((CREATE if call == "create" else GET) % json.dumps(rp_id)) for call, rp_id, _ in CASES]


@pytest.mark.skipif(chromium_path() is None, reason="Debian's chromium is not installed (make deps)")
def test_a_page_under_an_idn_public_suffix_cannot_claim_the_suffix_in_chromium(site, daemon):
    """Chromium's own WebAuthn and passkeyd's extension answer the hostile page alike: a
    SecurityError for the suffix in every spelling, register and sign in; the page's own host
    works in both; passkeyd stores nothing of the suffix."""
    expected = [outcome for _, _, outcome in CASES]

    oracle = Oracle(extra=site.flags)
    try:
        page = oracle.page(site.url)
        chromium = outcomes(page)
        page.close()
    finally:
        oracle.close()
    assert chromium == expected

    subject = Session("chromium", daemon.socket, extra=site.flags)
    try:
        page = subject.browser.new_page(site.url)
        page.send("Page.bringToFront")
        passkeyd = outcomes(page)
        page.close()
    finally:
        subject.close()
    assert passkeyd == chromium

    assert_nothing_of_the_suffix(daemon)


@pytest.mark.skipif(firefox_path() is None, reason="Debian's firefox-esr is not installed (make deps)")
def test_a_page_under_an_idn_public_suffix_cannot_claim_the_suffix_in_firefox(site, daemon_factory):
    """The same page in Firefox ESR with the passkeyd add-on, launched as a test suite launches
    it (passkeyd.firefox.launch; every host name resolved here, the test's certificate accepted
    with accept_insecure_certs): the same answers. Firefox's own WebAuthn has no virtual
    authenticator to compare with over WebDriver BiDi, so the outcomes are asserted alone."""
    daemon = daemon_factory("--presence", "auto", "--uv", "auto")
    firefox = passkeyd.firefox.launch(daemon, accept_insecure_certs=True, prefs={
        "network.dns.forceResolve": "127.0.0.1", "network.trr.mode": 5})
    try:
        page = firefox.new_page(site.url)
        assert outcomes(page) == [outcome for _, _, outcome in CASES]
        page.close()
    finally:
        firefox.close()
    assert_nothing_of_the_suffix(daemon)


def assert_nothing_of_the_suffix(daemon) -> None:
    """The page's own host holds the one passkey it made; the suffix holds none."""
    for rp_id in (HOST, SUFFIX):
        done = passkeyctl(daemon.socket, "--json", "list", "--rp", rp_id, pin=None)
        assert done.returncode == 0, done.stderr
        held = json.loads(done.stdout)["relyingParties"]
        assert [rp["id"] for rp in held] == ([HOST] if rp_id == HOST else []), held
