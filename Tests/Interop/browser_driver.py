"""Headless Chromium (DevTools protocol) and Firefox ESR (WebDriver BiDi), standard library only.

Both speak JSON over a WebSocket. The WebSocket, the connection that matches replies to
commands, the page surface and all of Firefox are the shipped package's passkeyd.firefox
(integrations/python/passkeyd/firefox.py, standard library only too): one implementation, which
this file re-exports and adds Chromium to. A browser here is started with a temporary profile,
reached over loopback, and always killed by `close()` (each step has a timeout, so nothing waits
forever on a browser that went away). Pages expose one small surface to the flows, whatever the
browser: `navigate`, `evaluate` (a JSON value, a promise awaited), `wait_for`, `focus`, `press`
(a trusted key press, as a user's), `type_text` (trusted text input into the focused field, as a
user's typing).
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path


def _passkeyd_firefox():
    """passkeyd.firefox from the installed package (the suites' venv has this tree's, editable);
    else this tree's file on its own, for a python3 without python-fido2, which the package's
    __init__ imports (the benchmark scripts run under the system's python3)."""
    try:
        import passkeyd.firefox

        return passkeyd.firefox
    except ImportError:
        pass
    path = Path(__file__).resolve().parent.parent.parent / "integrations" / "python" / "passkeyd" / "firefox.py"
    spec = importlib.util.spec_from_file_location("passkeyd_firefox_driver", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


_firefox = _passkeyd_firefox()
STEP_TIMEOUT = _firefox.STEP_TIMEOUT
WebSocket = _firefox.WebSocket
Connection = _firefox.Connection
poll = _firefox.poll
BrowserError = _firefox.BrowserError
PageError = _firefox.PageError
Page = _firefox.Page
Browser = _firefox.Browser
Firefox = _firefox.Firefox
FirefoxPage = _firefox.FirefoxPage
FIREFOX_PREFS = _firefox.FIREFOX_PREFS
firefox_path = _firefox.firefox_path
_kill = _firefox.kill

KEYS = {  # name → DevTools' key, code, virtual key code and text (Input.dispatchKeyEvent)
    "ArrowDown": ("ArrowDown", "ArrowDown", 40, ""),
    "ArrowUp": ("ArrowUp", "ArrowUp", 38, ""),
    "Enter": ("Enter", "Enter", 13, "\r"),
    "Escape": ("Escape", "Escape", 27, ""),
}


# -- Chromium ------------------------------------------------------------------------------


def chromium_path() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


def devtools_port(profile: str, browser: subprocess.Popen) -> int:
    """The port chromium's --remote-debugging-port=0 picked (its DevToolsActivePort file)."""
    marker = os.path.join(profile, "DevToolsActivePort")
    deadline = time.monotonic() + STEP_TIMEOUT
    while time.monotonic() < deadline:
        if browser.poll() is not None:
            raise RuntimeError(f"chromium exited with {browser.returncode}")
        try:
            with open(marker) as f:
                return int(f.readline())
        except (FileNotFoundError, ValueError):
            time.sleep(0.05)
    raise TimeoutError("chromium did not open its DevTools port")


class ChromiumPage(Page):
    def __init__(self, browser: "Chromium", target_id: str):
        self.browser = browser
        self.target_id = target_id
        self.session = browser.conn.call("Target.attachToTarget", {"targetId": target_id, "flatten": True})["sessionId"]
        self.send("Page.enable")
        self.send("Runtime.enable")
        # WebAuthn answers only a focused document; headless has no window focus to give.
        self.send("Emulation.setFocusEmulationEnabled", {"enabled": True})

    def send(self, method: str, params: dict | None = None, timeout: float = STEP_TIMEOUT) -> dict:
        return self.browser.conn.call(method, params, timeout=timeout, sessionId=self.session)

    def evaluate(self, expression: str, timeout: float = STEP_TIMEOUT):
        result = self.send("Runtime.evaluate", {"expression": self.wrap(expression), "awaitPromise": True,
                                                "returnByValue": True, "userGesture": True}, timeout=timeout)
        if "exceptionDetails" in result:
            details = result["exceptionDetails"]
            raise PageError(details.get("exception", {}).get("description") or details.get("text"))
        return json.loads(result["result"]["value"])

    def navigate(self, url: str) -> None:
        self.send("Page.navigate", {"url": url})
        self.wait_for("document.readyState === 'complete' && location.href === " + json.dumps(url))

    def press(self, key: str, closes: bool = False) -> None:
        """A trusted key press. `closes`: the key may close this page (an extension window's
        answer), so its events may never be acknowledged; they are sent without waiting long."""
        name, code, vk, text = KEYS[key]
        common = {"key": name, "code": code, "windowsVirtualKeyCode": vk, "nativeVirtualKeyCode": vk}
        try:
            self.send("Input.dispatchKeyEvent", {"type": "keyDown", **common, **({"text": text} if text else {})},
                      timeout=5 if closes else STEP_TIMEOUT)
            self.send("Input.dispatchKeyEvent", {"type": "keyUp", **common}, timeout=5 if closes else STEP_TIMEOUT)
        except (BrowserError, TimeoutError, ConnectionError):
            if not closes:
                raise

    def click_at(self, x: float, y: float, closes: bool = False) -> None:
        """A trusted mouse click at the viewport point (x, y), as a person's (DevTools Input).
        `closes`: the click may close this page (an extension window's answer)."""
        try:
            for kind in ("mouseMoved", "mousePressed", "mouseReleased"):
                self.send("Input.dispatchMouseEvent", {"type": kind, "x": x, "y": y, "button": "left",
                                                       "clickCount": 0 if kind == "mouseMoved" else 1},
                          timeout=5 if closes else STEP_TIMEOUT)
        except (BrowserError, TimeoutError, ConnectionError):
            if not closes:
                raise

    def type_text(self, text: str) -> None:
        self.send("Input.insertText", {"text": text})

    def close(self) -> None:
        self.browser.conn.call("Target.closeTarget", {"targetId": self.target_id})


class Chromium(Browser):
    """Debian's chromium, headless, with the unpacked extension and a profile of its own."""

    name = "chromium"

    def __init__(self, extension: str, profile: str | None = None, env: dict | None = None, extra: list[str] = ()):
        path = chromium_path()
        if path is None:
            raise FileNotFoundError("Debian's chromium is not installed (apt-get install chromium)")
        self.profile = profile or tempfile.mkdtemp(prefix="passkeyd-chromium-")
        self.own_profile = profile is None
        flags = ["--headless=new", "--remote-debugging-port=0", f"--user-data-dir={self.profile}",
                 "--no-first-run", "--no-default-browser-check", "--disable-gpu", "--disable-background-networking",
                 "--disable-sync", "--disable-component-update",
                 # Chromium 137+ ignores --load-extension unless this feature is off.
                 "--disable-features=DisableLoadExtensionCommandLineSwitch",
                 f"--disable-extensions-except={extension}", f"--load-extension={extension}", *extra]
        if os.geteuid() == 0:
            flags.append("--no-sandbox")  # chromium refuses to run as root with its sandbox
        self.log = tempfile.TemporaryFile()
        self.process = subprocess.Popen([path, *flags, "about:blank"], stdout=self.log, stderr=self.log,
                                        env={**os.environ, **(env or {})}, start_new_session=True)
        try:
            try:
                port = devtools_port(self.profile, self.process)
            except RuntimeError as error:
                raise RuntimeError(f"{error}: {self.output()}") from None
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/version", timeout=30) as reply:
                version = json.load(reply)
            self.version = version.get("Browser", "chromium")
            self.conn = Connection(version["webSocketDebuggerUrl"])
            self.conn.call("Target.setDiscoverTargets", {"discover": True})
        except BaseException:
            self.close()
            raise

    def _open_tab(self) -> ChromiumPage:
        return ChromiumPage(self, self.conn.call("Target.createTarget", {"url": "about:blank"})["targetId"])

    def wait_for_page(self, url_prefix: str, timeout: float = STEP_TIMEOUT) -> ChromiumPage:
        """A page the browser opened itself (window.open), once its URL starts with `url_prefix`."""
        target = poll(lambda: next((t for t in self.conn.call("Target.getTargets")["targetInfos"]
                                    if t["type"] == "page" and t["url"].startswith(url_prefix)), None),
                      timeout, f"no page at {url_prefix}")
        return ChromiumPage(self, target["targetId"])

    def extension_pages(self, path: str) -> list[ChromiumPage]:
        """The extension's own pages open at `path` (e.g. its approval window, prompt.html): each
        is a target of its own, reached over the DevTools protocol as a person's input reaches it."""
        pages = getattr(self, "_extension_pages", {})
        self._extension_pages = pages
        found = []
        for target in self.conn.call("Target.getTargets")["targetInfos"]:
            if target["type"] == "page" and target["url"].startswith("chrome-extension://") \
                    and target["url"].split("#")[0].endswith("/" + path):
                if target["targetId"] not in pages:
                    pages[target["targetId"]] = ChromiumPage(self, target["targetId"])
                found.append(pages[target["targetId"]])
        return found

    def extension_ready(self, timeout: float = STEP_TIMEOUT) -> None:
        """Waits for the extension's service worker (the background) to be running."""
        poll(lambda: any(t["type"] == "service_worker" and t["url"].startswith("chrome-extension://")
                         for t in self.conn.call("Target.getTargets")["targetInfos"]),
             timeout, "the extension's service worker never started")

    def close(self) -> None:
        if getattr(self, "conn", None):
            self.conn.close()
        _kill(self.process)
        self.log.close()
        if self.own_profile:
            shutil.rmtree(self.profile, ignore_errors=True)
