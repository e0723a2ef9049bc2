"""passkeydemo --web refuses other origins: their form POSTs change nothing and its pages
cannot be framed.

The attacker is a page on another loopback origin, `http://localhost:OTHERPORT`. SameSite=Strict
does not stop it: *site* ignores the port, so its form POST carries the shop's session cookie.
What stops it is the server (Sources/passkeydemo/Web/SameOriginPolicy.swift): a state-changing
request must come from the site's own Origin and be application/json, and every answer says
`frame-ancestors 'none'` and `X-Frame-Options: DENY`. Tested in headless Chromium (the attack as
a browser runs it) and with raw HTTP (every refusal's exact answer).
"""

from __future__ import annotations

import http.client
import http.server
import json
import shutil
import tempfile
import threading

import pytest

from browser_driver import Chromium, chromium_path, poll
from passkeyd_hid import REPO
from test_web_demo import CAROL, WebDemo, free_port

EXTENSION = str(REPO / "integrations" / "browser" / "extension")
TIMEOUT = 60.0


@pytest.fixture(scope="module")
def web():
    state = tempfile.mkdtemp(prefix="passkeydemo-web-security-")
    demo = WebDemo(state)
    yield demo
    demo.stop()
    shutil.rmtree(state, ignore_errors=True)


def request(web, method: str, host: str, path: str, body: bytes = b"", headers: dict | None = None):
    """(status, headers, body) of one request to the demo, Host naming `host`."""
    connection = http.client.HTTPConnection("127.0.0.1", web.port, timeout=30)
    try:
        connection.request(method, path, body=body or None, headers={"Host": f"{host}:{web.port}", **(headers or {})})
        reply = connection.getresponse()
        return reply.status, {k.lower(): v for k, v in reply.getheaders()}, reply.read()
    finally:
        connection.close()


def signed_in_cookie(web) -> str:
    """A shop session, opened with the saved password (no authenticator needed)."""
    status, headers, body = request(web, "POST", "localhost", "/api/password",
                                    json.dumps({"username": CAROL[0], "password": CAROL[1]}).encode(),
                                    {"Content-Type": "application/json", "Origin": f"http://localhost:{web.port}"})
    assert status == 200, body
    cookie = headers["set-cookie"].split(";", 1)[0]
    assert cookie.startswith("shop_session=") and len(cookie) > len("shop_session=")
    return cookie


def still_signed_in(web, cookie: str) -> bool:
    status, headers, _ = request(web, "GET", "localhost", "/signed-in", headers={"Cookie": cookie})
    assert status in (200, 303), status
    return status == 200


def test_a_foreign_origin_cannot_sign_out_or_post_anything(web):
    cookie = signed_in_cookie(web)
    attacker = f"http://localhost:{free_port()}"
    # The form an attacker's page submits: text/plain, with the cookie and its own Origin.
    status, _, body = request(web, "POST", "localhost", "/api/sign-out", b"x=y",
                              {"Content-Type": "text/plain", "Origin": attacker, "Cookie": cookie})
    assert (status, json.loads(body)) == (403, {"error": "cross-origin",
                                                "message": "Only this site's own pages may send this request."})
    # JSON does not help another origin (its fetch would need a preflight this server never grants).
    status, _, _ = request(web, "POST", "localhost", "/api/sign-out", b"{}",
                           {"Content-Type": "application/json", "Origin": attacker, "Cookie": cookie})
    assert status == 403
    # The courier app is another origin of the same server: it may not post to the shop either.
    status, _, _ = request(web, "POST", "localhost", "/api/sign-out", b"{}",
                           {"Content-Type": "application/json", "Origin": f"http://courier.localhost:{web.port}",
                            "Cookie": cookie})
    assert status == 403
    # A sandboxed frame's opaque origin is foreign too.
    status, _, _ = request(web, "POST", "localhost", "/api/sign-out", b"{}",
                           {"Content-Type": "application/json", "Origin": "null", "Cookie": cookie})
    assert status == 403
    # Without an Origin (a program, not a browser) a form body is still refused.
    status, _, body = request(web, "POST", "localhost", "/api/sign-out", b"x=y",
                              {"Content-Type": "application/x-www-form-urlencoded", "Cookie": cookie})
    assert (status, json.loads(body)["error"]) == (415, "bad-media-type")
    assert still_signed_in(web, cookie)
    # The same courier refusal, and the network switch (state too) refused alike.
    status, _, _ = request(web, "POST", "courier.localhost", "/api/network", b'{"online": false}',
                           {"Content-Type": "application/json", "Origin": attacker})
    assert status == 403
    status, _, body = request(web, "GET", "courier.localhost", "/api/network")
    assert json.loads(body) == {"online": True}

    # The site's own page signs out: the refusals above were the policy, not a broken sign-out.
    status, _, _ = request(web, "POST", "localhost", "/api/sign-out", b"{}",
                           {"Content-Type": "application/json", "Origin": f"http://localhost:{web.port}",
                            "Cookie": cookie})
    assert status == 200
    assert not still_signed_in(web, cookie)


@pytest.mark.parametrize("host,path", [("localhost", "/"), ("localhost", "/scenario/registration"),
                                       ("localhost", "/signed-in"), ("localhost", "/assets/demo.js"),
                                       ("localhost", "/no-such-page"), ("courier.localhost", "/"),
                                       ("rebound.example", "/")])
def test_every_answer_refuses_framing(web, host, path):
    _, headers, _ = request(web, "GET", host, path)
    assert headers.get("content-security-policy") == "frame-ancestors 'none'"
    assert headers.get("x-frame-options") == "DENY"


def test_refusals_and_api_answers_refuse_framing_too(web):
    _, headers, _ = request(web, "POST", "localhost", "/api/sign-out", b"x", {"Content-Type": "text/plain"})
    assert headers.get("x-frame-options") == "DENY"
    assert headers.get("content-security-policy") == "frame-ancestors 'none'"


# -- the attack in a real browser -----------------------------------------------------------


class AttackerSite:
    """Another origin on loopback: `http://localhost:PORT/`, serving the pages it is given."""

    def __init__(self, pages: dict[str, str]):
        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802 (http.server's name)
                page = pages.get(self.path)
                self.send_response(200 if page else 404)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.end_headers()
                self.wfile.write((page or "not here").encode())

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.origin = f"http://localhost:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture(scope="module")
def browser():
    if chromium_path() is None:
        pytest.skip("Debian's chromium is not installed (make deps)")
    b = Chromium(EXTENSION)
    yield b
    b.close()


def frames(page) -> dict[str, dict]:
    """{iframe name: its frame} from the browser's frame tree (CDP), seen from outside every
    page's script: a refused frame commits Chromium's error page, naming the refused URL."""
    tree = page.send("Page.getFrameTree")["frameTree"]
    return {child["frame"].get("name", ""): child["frame"] for child in tree.get("childFrames", [])}


def test_a_same_site_attacker_page_neither_signs_out_nor_frames_the_shop(web, browser):
    shop = f"http://localhost:{web.port}"
    attacker = AttackerSite({
        "/sign-out": f"""<!doctype html><form id=f method=POST action="{shop}/api/sign-out" enctype="text/plain">
            <input name=x value=y></form><script>f.submit()</script>""",
        "/frame": f"""<!doctype html><iframe name=shop src="{shop}/"></iframe>
            <iframe name=own src="/own"></iframe>""",
        "/own": "<!doctype html><p>the attacker's own frame</p>",
    })
    page = browser.new_page()
    try:
        # Signed in from the shop's own page (its fetch sends the shop's Origin and JSON).
        page.navigate(f"{shop}/")
        reply = page.evaluate(f"""fetch("/api/password", {{method: "POST", headers: {{"Content-Type": "application/json"}},
            body: JSON.stringify({json.dumps({"username": CAROL[0], "password": CAROL[1]})})}}).then((r) => r.status)""")
        assert reply == 200
        page.navigate(f"{shop}/signed-in")
        assert page.evaluate("location.pathname") == "/signed-in"

        # The attacker's page posts the sign-out form; the browser follows it to the refusal.
        page.send("Page.navigate", {"url": f"{attacker.origin}/sign-out"})
        poll(lambda: page.evaluate("location.href") == f"{shop}/api/sign-out" and
             page.evaluate("document.readyState") == "complete", TIMEOUT, "the form was never submitted")
        assert json.loads(page.evaluate("document.body.innerText"))["error"] == "cross-origin"
        page.navigate(f"{shop}/signed-in")
        assert page.evaluate("location.pathname") == "/signed-in", "the cross-origin form signed the user out"
        assert CAROL[0] in page.evaluate("document.body.innerText")

        # Framed by the attacker, the shop shows nothing (Chromium commits an error page instead);
        # the attacker's own frame loads, so the check can tell the two apart.
        page.navigate(f"{attacker.origin}/frame")
        loaded = poll(lambda: (lambda f: f if f.get("own", {}).get("url", "").endswith("/own") and "shop" in f
                               and f["shop"].get("url") != "about:blank" else None)(frames(page)),
                      TIMEOUT, "the frames never loaded")
        assert loaded["shop"]["url"] == "chrome-error://chromewebdata/", loaded["shop"]
        assert loaded["shop"].get("unreachableUrl") == f"{shop}/"
    finally:
        page.close()
        attacker.close()
