#!/usr/bin/env python3
"""passkeyd in a page, for `make bench`: how many navigator.credentials create() (resident key)
and get() (discoverable) a page on localhost completes per second through the passkeyd
extension and its native-messaging host, and the host alone, to say where the time goes.

Starts a passkeyd of its own (--presence auto --uv auto) on a temporary socket, installs the
host for a temporary Chromium profile (`passkeyctl browser install --chromium --profile`),
starts Debian's headless chromium with the extension (integrations/browser/extension), and
times the calls inside a page: the page and the calls of scripts/chrome-virtual-authenticator.py
(Chrome's virtual authenticator), so the two compare call for call. Then it drives `passkeyctl browser host` directly over its stdio
(the native-messaging framing) with the same requests: the page's figure minus the host's is
what the browser's hops cost (page script → content script → service worker → native port and
back). Last, the page's sign-ins once more with a host that answers each `get` at once with an
answer the real host gave (this script, `--echo-host`): the hops alone, with no passkeyd behind
them (and this script's own Python, some tens of microseconds a message): near the floor any
host could reach. Prints one JSON object: per figure the operation count, the wall time and each latency
in milliseconds. Python's standard library only.

Exit 3 with a sentence on stderr when chromium, the extension or the browser driver is missing.
"""

from __future__ import annotations

import argparse
import base64
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "Tests" / "Interop"))

# The page, its calls (ES256, resident key, no UV asked) and the figures' form are those of
# Chrome's virtual-authenticator figure, so the two compare call for call.
_spec = importlib.util.spec_from_file_location("chrome_virtual_authenticator", REPO / "scripts" / "chrome-virtual-authenticator.py")
chrome = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(chrome)
# Registrations are timed in batches, as Chrome's are; ours need no emptying in between.
CREATE_BATCH = 20


class Daemon:
    """A passkeyd of the bench's own on a fresh data folder; each figure gets a new one, so the
    discoverable get finds exactly one credential (no account chooser), as Chrome's does."""

    def __init__(self, binary: str, work: str, name: str):
        self.folder = os.path.join(work, name)
        os.makedirs(self.folder, mode=0o700)
        self.socket = os.path.join(self.folder, "ctaphid.sock")
        self.log = open(os.path.join(self.folder, "passkeyd.log"), "wb")
        self.process = subprocess.Popen(
            [binary, "--socket", self.socket, "--data-dir", os.path.join(self.folder, "data"), "--presence", "auto", "--uv", "auto", "--log-level", "warning"],
            stdout=self.log, stderr=self.log)
        deadline = time.monotonic() + 60
        while not os.path.exists(self.socket):
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"passkeyd did not start (see {self.log.name})")
            time.sleep(0.02)

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(30)
        self.log.close()


def measure_page(browser, url: str, operation: str, operations: int, duration: float, created: bool = True) -> dict:
    """`created`: whether the page registers first (the echo host only signs in)."""
    page = browser.new_page(url)
    try:
        page.evaluate(chrome.BENCH.strip().rstrip(";"))  # the driver evaluates an expression
        if created:
            page.evaluate(f"bench.create({1 if operation == 'get' else chrome.WARMUP})")
        if operation == "get":
            page.evaluate(f"bench.get({chrome.WARMUP}, 1e9)")
            return chrome.figure(page.evaluate(f"bench.get({operations}, {duration})", timeout=duration + 120))
        latencies: list[float] = []
        while len(latencies) < operations and sum(latencies) < duration * 1000:
            latencies += page.evaluate(f"bench.create({min(CREATE_BATCH, operations - len(latencies))})")
        return chrome.figure(latencies)
    finally:
        page.close()


def measure_host(passkeyctl: str, socket: str, origin: str, operation: str, operations: int, duration: float,
                 answers: dict | None = None) -> dict:
    """The host alone: the same requests as the page's, framed on its stdio by this process.
    `answers` gets the last reply, for the echo host."""
    from native_host import NativeHost

    host = NativeHost(socket, command=[passkeyctl, "browser", "host", "--automation", "--socket", socket, "chrome-extension://bench/"])
    user = 0

    def request(kind: str) -> dict:
        nonlocal user
        challenge = base64.urlsafe_b64encode(os.urandom(32)).rstrip(b"=").decode()
        if kind == "get":
            return {"options": {"challenge": challenge, "rpId": "localhost", "userVerification": "discouraged"}}
        user += 1
        return {"options": {
            "rp": {"id": "localhost", "name": "bench"}, "challenge": challenge,
            "user": {"id": base64.urlsafe_b64encode(f"user{user}".encode()).rstrip(b"=").decode(), "name": f"user{user}",
                     "displayName": f"User {user}"},
            "pubKeyCredParams": [{"type": "public-key", "alg": -7}],
            "authenticatorSelection": {"residentKey": "required", "userVerification": "discouraged"}, "attestation": "none"}}

    def once(kind: str) -> float:
        began = time.perf_counter()
        reply = host.call(kind, origin=origin, **({"mediation": "optional"} if kind == "get" else {}), **request(kind))
        elapsed = (time.perf_counter() - began) * 1000
        if reply["type"] != "result":
            raise RuntimeError(f"the host answered {reply}")
        if answers is not None:
            answers[kind] = reply
        return elapsed

    try:
        if operation == "get":
            once("create")
        for _ in range(chrome.WARMUP):
            once(operation)
        latencies: list[float] = []
        start = time.perf_counter()
        while len(latencies) < operations and time.perf_counter() - start < duration:
            latencies.append(once(operation))
        return chrome.figure(latencies)
    finally:
        host.close()


def echo_host(answer_file: str) -> int:
    """A native-messaging host that answers every `get` at once with a recorded answer (its id
    replaced), anything else with an error: what the browser's hops cost with nothing behind them."""
    answer = json.loads(Path(answer_file).read_text())
    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    while len(head := stdin.read(4)) == 4:
        message = json.loads(stdin.read(int.from_bytes(head, sys.byteorder)))
        reply = {**answer, "id": message.get("id")} if message.get("type") == "get" else \
            {"type": "error", "id": message.get("id"), "name": "NotSupportedError", "message": "the echo host only signs in"}
        body = json.dumps(reply).encode()
        stdout.write(len(body).to_bytes(4, sys.byteorder) + body)
        stdout.flush()
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--duration", type=float, default=5.0)
    parser.add_argument("--operations", type=int, default=5000)
    parser.add_argument("--passkeyd", required=True)
    parser.add_argument("--passkeyctl", required=True)
    parser.add_argument("--extension", default=str(REPO / "integrations" / "browser" / "extension"))
    if sys.argv[1:2] == ["--echo-host"]:  # started by the browser (after the answer, the caller's origin)
        return echo_host(sys.argv[2])
    args = parser.parse_args()

    if not (Path(args.extension) / "manifest.json").exists():
        print(f"the extension is not at {args.extension}", file=sys.stderr)
        return 3
    try:
        from browser_driver import Chromium, chromium_path
    except ImportError:
        print("Tests/Interop/browser_driver.py (the browser driver) is missing", file=sys.stderr)
        return 3
    if chromium_path() is None:
        print("Debian's chromium is not installed (apt-get install chromium)", file=sys.stderr)
        return 3

    server, page_port = chrome.serve_page()
    url, origin = f"http://localhost:{page_port}/", f"http://localhost:{page_port}"
    work = tempfile.mkdtemp(prefix="passkeybench-extension-")
    figures: dict = {}
    try:
        def in_page(name: str, operation: str, echo: str | None = None) -> None:
            daemon = Daemon(args.passkeyd, work, f"page-{name}")
            home = os.path.join(work, f"home-{name}")
            profile = os.path.join(home, "chromium")
            env = {"HOME": home, "XDG_CONFIG_HOME": os.path.join(home, ".config"), "XDG_DATA_HOME": os.path.join(home, ".local", "share")}
            base = {k: v for k, v in os.environ.items() if not k.startswith("PASSKEY")}
            installed = subprocess.run([args.passkeyctl, "--socket", daemon.socket, "browser", "install", "--chromium", "--profile", profile, "--automation"],
                                       env={**base, **env}, capture_output=True, text=True, timeout=60)
            if installed.returncode != 0:
                raise RuntimeError(f"passkeyctl browser install failed: {installed.stderr}")
            if echo is not None:
                # The manifest's `path` names the script that starts the host: it starts the echo host instead.
                manifest = json.loads(Path(profile, "NativeMessagingHosts", "dev.passkeyd.host.json").read_text())
                Path(manifest["path"]).write_text(f"#!/bin/sh\nexec {sys.executable} {Path(__file__).resolve()} --echo-host {echo}\n")
            browser = Chromium(args.extension, profile=profile, env=env)
            try:
                browser.extension_ready()
                figures[name] = measure_page(browser, url, operation, args.operations, args.duration, created=echo is None)
                figures["browser"] = browser.version
            finally:
                browser.close()
                daemon.stop()

        for operation in ("get", "create"):
            in_page(operation, operation)
        answers: dict = {}
        for operation in ("get", "create"):
            daemon = Daemon(args.passkeyd, work, f"host-{operation}")
            try:
                figures["host" + operation.capitalize()] = measure_host(
                    args.passkeyctl, daemon.socket, origin, operation, args.operations, args.duration, answers)
            finally:
                daemon.stop()
        answer = os.path.join(work, "answer.json")
        Path(answer).write_text(json.dumps(answers["get"]))
        in_page("echoGet", "get", echo=answer)
        print(json.dumps(figures))
        return 0
    finally:
        server.shutdown()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
