#!/usr/bin/env python3
"""Chrome's virtual authenticator, for `make bench`: how many navigator.credentials
create() (resident key) and get() (discoverable) a page on localhost completes per second.

Starts Debian's headless chromium, serves a blank page on 127.0.0.1, adds a CTAP2 virtual
authenticator with the DevTools protocol (WebAuthn domain, presence and UV simulated),
and times the calls inside the page. Prints one JSON object: per figure the operation
count, the wall time and each latency in milliseconds. Python's standard library only
(a minimal WebSocket client), so it needs nothing from the bench's venv.

Exit 3 with a sentence on stderr when chromium is not installed.
"""

from __future__ import annotations

import argparse
import http.server
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

# The minimal stdlib WebSocket client the real-browser tests use too.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "Tests" / "Interop"))
from browser_driver import WebSocket, devtools_port  # noqa: E402

PAGE = b"<!doctype html><title>passkeybench</title><p>virtual authenticator bench</p>"

# Defined in the page once; each call times its operations with performance.now().
BENCH = """
window.bench = (() => {
  const random = () => crypto.getRandomValues(new Uint8Array(32));
  let user = 0;
  const create = () => navigator.credentials.create({publicKey: {
      rp: {id: "localhost", name: "bench"},
      user: {id: new TextEncoder().encode("user" + (++user)), name: "user" + user, displayName: "User " + user},
      challenge: random(), pubKeyCredParams: [{type: "public-key", alg: -7}],
      authenticatorSelection: {residentKey: "required", userVerification: "discouraged"}, attestation: "none"}});
  const get = () => navigator.credentials.get({publicKey: {
      challenge: random(), rpId: "localhost", allowCredentials: [], userVerification: "discouraged"}});
  async function time(operation, count, seconds) {
    const latencies = [], start = performance.now();
    while (latencies.length < count && performance.now() - start < seconds * 1000) {
      const began = performance.now();
      await operation();
      latencies.push(performance.now() - began);
    }
    return latencies;
  }
  return {create: (count) => time(create, count, 1e9), get: (count, seconds) => time(get, count, seconds)};
})();
"""

# The virtual CTAP2 device keeps only a few resident credentials (the 4th create fails with
# NotAllowedError), so registrations run in batches with the device emptied between them.
CREATE_BATCH = 3
WARMUP = 5

def serve_page() -> tuple[http.server.HTTPServer, int]:
    class Page(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(PAGE)))
            self.end_headers()
            self.wfile.write(PAGE)

        def log_message(self, *args):
            pass

    server = http.server.HTTPServer(("127.0.0.1", 0), Page)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, server.server_address[1]


class Page:
    """A new tab with a new virtual authenticator, so each figure starts from an empty one."""

    def __init__(self, port: int, page_port: int):
        with urllib.request.urlopen(urllib.request.Request(
                f"http://127.0.0.1:{port}/json/new?about:blank", method="PUT"), timeout=30) as reply:
            target = json.load(reply)
        self.ws = WebSocket(target["webSocketDebuggerUrl"])
        self.ws.call("Page.enable")
        self.ws.call("Page.navigate", url=f"http://localhost:{page_port}/")
        while self.evaluate("document.readyState") != "complete":
            time.sleep(0.05)
        # WebAuthn answers only a focused document (NotAllowedError otherwise); headless has no window focus.
        self.ws.call("Emulation.setFocusEmulationEnabled", enabled=True)
        self.ws.call("WebAuthn.enable", enableUI=False)
        self.authenticator = self.ws.call("WebAuthn.addVirtualAuthenticator", options={
            "protocol": "ctap2", "transport": "usb", "hasResidentKey": True, "hasUserVerification": True,
            "isUserVerified": True, "automaticPresenceSimulation": True})["authenticatorId"]
        self.evaluate(BENCH)

    def evaluate(self, expression: str):
        result = self.ws.call("Runtime.evaluate", expression=expression, awaitPromise=True, returnByValue=True)
        if "exceptionDetails" in result:
            raise RuntimeError(f"the page failed: {result['exceptionDetails'].get('exception', {}).get('description')}")
        return result["result"].get("value")

    def clear(self) -> None:
        self.ws.call("WebAuthn.clearCredentials", authenticatorId=self.authenticator)


def figure(latencies: list[float]) -> dict:
    """ops/s from the time spent inside the calls alone (the DevTools round trips between
    batches are left out, in Chrome's favour)."""
    return {"operations": len(latencies), "seconds": sum(latencies) / 1000, "latencies": latencies}


def measure_create(page: Page, operations: int, duration: float) -> dict:
    latencies: list[float] = []
    page.evaluate(f"bench.create({CREATE_BATCH})")
    page.clear()
    while len(latencies) < operations and sum(latencies) < duration * 1000:
        latencies += page.evaluate(f"bench.create({min(CREATE_BATCH, operations - len(latencies))})")
        page.clear()
    return figure(latencies)


def measure_get(page: Page, operations: int, duration: float) -> dict:
    page.evaluate("bench.create(1)")
    page.evaluate(f"bench.get({WARMUP}, 1e9)")
    return figure(page.evaluate(f"bench.get({operations}, {duration})"))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--duration", type=float, default=5.0)
    parser.add_argument("--operations", type=int, default=5000)
    args = parser.parse_args()

    browser_path = shutil.which("chromium") or shutil.which("chromium-browser")
    if browser_path is None:
        print("Debian's chromium is not installed (apt-get install chromium)", file=sys.stderr)
        return 3
    server, page_port = serve_page()
    profile = tempfile.mkdtemp(prefix="passkeybench-chromium-")
    flags = ["--headless=new", "--remote-debugging-port=0", f"--user-data-dir={profile}", "--no-first-run",
             "--disable-gpu", "--disable-extensions", "--disable-background-networking"]
    if os.geteuid() == 0:
        flags.append("--no-sandbox")  # chromium refuses to run as root with its sandbox
    browser = subprocess.Popen([browser_path, *flags, "about:blank"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        port = devtools_port(profile, browser)
        figures = {
            "create": measure_create(Page(port, page_port), args.operations, args.duration),
            "get": measure_get(Page(port, page_port), args.operations, args.duration),
        }
        figures["browser"] = urllib.request.urlopen(f"http://127.0.0.1:{port}/json/version", timeout=30).read().decode()
        figures["browser"] = json.loads(figures["browser"]).get("Browser", "chromium")
        print(json.dumps(figures))
        return 0
    finally:
        browser.terminate()
        try:
            browser.wait(10)
        except subprocess.TimeoutExpired:
            browser.kill()
        server.shutdown()
        shutil.rmtree(profile, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
