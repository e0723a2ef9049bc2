"""Headless Chromium (DevTools protocol) and Firefox ESR (WebDriver BiDi), standard library only.

Both speak JSON over a WebSocket; `WebSocket` is just enough of RFC 6455 for that. A browser
here is started with a temporary profile, reached over loopback, and always killed by `close()`
(each step has a timeout, so nothing waits forever on a browser that went away). Pages expose
one small surface to the flows, whatever the browser: `navigate`, `evaluate` (a JSON value, a
promise awaited), `wait_for`, `focus`, `press` (a trusted key press, as a user's), `type_text`
(trusted text input into the focused field, as a user's typing).
"""

from __future__ import annotations

import base64
import json
import os
import queue
import re
import shutil
import socket
import struct
import subprocess
import tempfile
import threading
import time
import urllib.request

STEP_TIMEOUT = 60.0


class WebSocket:
    """Just enough of RFC 6455 for the DevTools protocol and BiDi: text frames, client-masked."""

    def __init__(self, url: str, timeout: float = 120):
        rest = url.split("://", 1)[1]
        hostport, _, path = rest.partition("/")
        host, port = hostport.rsplit(":", 1)
        self.sock = socket.create_connection((host, int(port)), timeout=timeout)
        key = base64.b64encode(os.urandom(16)).decode()
        self.sock.sendall((f"GET /{path} HTTP/1.1\r\nHost: {hostport}\r\nUpgrade: websocket\r\n"
                           f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n").encode())
        response = b""
        while b"\r\n\r\n" not in response:
            chunk = self.sock.recv(4096)
            if not chunk:
                raise ConnectionError("the browser closed the WebSocket handshake")
            response += chunk
        if b" 101 " not in response.split(b"\r\n", 1)[0]:
            raise ConnectionError(f"the browser refused the WebSocket: {response[:200]!r}")
        self.buffer = response.split(b"\r\n\r\n", 1)[1]
        self.next_id = 0

    def _read(self, count: int) -> bytes:
        while len(self.buffer) < count:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise ConnectionError("the browser closed the WebSocket")
            self.buffer += chunk
        data, self.buffer = self.buffer[:count], self.buffer[count:]
        return data

    def send(self, text: str) -> None:
        payload = text.encode()
        header = bytes([0x81])
        if len(payload) < 126:
            header += bytes([0x80 | len(payload)])
        elif len(payload) < 65536:
            header += bytes([0x80 | 126]) + struct.pack(">H", len(payload))
        else:
            header += bytes([0x80 | 127]) + struct.pack(">Q", len(payload))
        mask = os.urandom(4)
        self.sock.sendall(header + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload)))

    def receive(self) -> str:
        message = b""
        while True:
            first, second = self._read(2)
            length = second & 0x7F
            if length == 126:
                length = struct.unpack(">H", self._read(2))[0]
            elif length == 127:
                length = struct.unpack(">Q", self._read(8))[0]
            payload = self._read(length)
            opcode = first & 0x0F
            if opcode == 0x8:
                raise ConnectionError("the browser closed the WebSocket")
            if opcode in (0x9, 0xA):
                continue
            message += payload
            if first & 0x80:
                return message.decode()

    def call(self, method: str, **params):
        """One DevTools command, answered in order (events in between are dropped)."""
        self.next_id += 1
        ident = self.next_id
        self.send(json.dumps({"id": ident, "method": method, "params": params}))
        while True:
            reply = json.loads(self.receive())
            if reply.get("id") == ident:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply.get("result", {})

    def close(self) -> None:
        try:
            self.sock.close()
        except OSError:
            pass


class Connection:
    """Commands with ids and replies matched to them; events kept in a queue for `event()`."""

    def __init__(self, url: str):
        self.ws = WebSocket(url)
        self.replies: dict[int, dict] = {}
        self.events: queue.Queue = queue.Queue()
        self.lock = threading.Lock()
        self.arrived = threading.Condition(self.lock)
        self.closed: Exception | None = None
        self.next_id = 0
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self) -> None:
        try:
            while True:
                message = json.loads(self.ws.receive())
                if "id" in message and message["id"] is not None:
                    with self.lock:
                        self.replies[message["id"]] = message
                        self.arrived.notify_all()
                else:
                    self.events.put(message)
        except Exception as error:  # the browser went away: every waiter learns it
            with self.lock:
                self.closed = error
                self.arrived.notify_all()

    def call(self, method: str, params: dict | None = None, timeout: float = STEP_TIMEOUT, **extra) -> dict:
        with self.lock:
            self.next_id += 1
            ident = self.next_id
        self.ws.send(json.dumps({"id": ident, "method": method, "params": params or {}, **extra}))
        deadline = time.monotonic() + timeout
        with self.lock:
            while ident not in self.replies:
                if self.closed:
                    raise ConnectionError(f"{method}: the browser connection closed ({self.closed})")
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError(f"{method}: no reply in {timeout:.0f} s")
                self.arrived.wait(left)
            reply = self.replies.pop(ident)
        if "error" in reply:
            raise BrowserError(f"{method}: {reply['error']} {reply.get('message', '')}".strip())
        return reply.get("result", {})

    def event(self, predicate, timeout: float = STEP_TIMEOUT) -> dict:
        """The next event `predicate` accepts (others are dropped)."""
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("the expected browser event did not come")
            try:
                message = self.events.get(timeout=left)
            except queue.Empty:
                continue
            if predicate(message):
                return message

    def close(self) -> None:
        self.ws.close()


def poll(condition, timeout: float, what: str):
    """`condition()`'s first truthy value, tried every 50 ms; TimeoutError naming `what` after `timeout` s."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise TimeoutError(what)
        time.sleep(0.05)


class BrowserError(RuntimeError):
    pass


class PageError(RuntimeError):
    """The page's script threw: `.text` is what it threw."""


KEYS = {  # name → (DevTools key, code, virtual key code, text) and WebDriver's key value
    "ArrowDown": (("ArrowDown", "ArrowDown", 40, ""), "\ue015"),
    "ArrowUp": (("ArrowUp", "ArrowUp", 38, ""), "\ue013"),
    "Enter": (("Enter", "Enter", 13, "\r"), "\ue007"),
    "Escape": (("Escape", "Escape", 27, ""), "\ue00c"),
}


class Page:
    """What flows use; the browser-specific classes below fill it in."""

    def evaluate(self, expression: str, timeout: float = STEP_TIMEOUT):
        """`expression`'s value (a promise awaited) as JSON; raises PageError when it throws."""
        raise NotImplementedError

    def navigate(self, url: str) -> None:
        raise NotImplementedError

    def press(self, key: str) -> None:
        raise NotImplementedError

    def type_text(self, text: str) -> None:
        """Types `text` into the focused element as trusted input (a page cannot do this)."""
        raise NotImplementedError

    def wait_for(self, expression: str, timeout: float = STEP_TIMEOUT):
        """Polls `expression` until it is truthy and returns it."""
        return poll(lambda: self.evaluate(expression), timeout, f"the page never satisfied {expression}")

    @staticmethod
    def wrap(expression: str) -> str:
        # JSON.stringify inside the page: one plain string crosses either protocol.
        return (f"(async () => JSON.stringify(await ({expression}) ?? null))()")


class Browser:
    """What both browsers share: a new tab at a URL, and the browser's own output for errors."""

    log: "tempfile._TemporaryFileWrapper"

    def _open_tab(self) -> Page:
        raise NotImplementedError

    def new_page(self, url: str = "about:blank") -> Page:
        page = self._open_tab()
        if url != "about:blank":
            page.navigate(url)
        return page

    def output(self) -> str:
        self.log.seek(0)
        return self.log.read().decode(errors="replace")[-4000:]


def _kill(process: subprocess.Popen | None) -> None:
    if process is None or process.poll() is not None:
        return
    try:
        os.killpg(process.pid, 15)
        process.wait(10)
    except (ProcessLookupError, subprocess.TimeoutExpired):
        try:
            os.killpg(process.pid, 9)
        except ProcessLookupError:
            pass
        process.wait(10)


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
        (name, code, vk, text), _ = KEYS[key]
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


# -- Firefox ESR ---------------------------------------------------------------------------


def firefox_path() -> str | None:
    return shutil.which("firefox-esr") or shutil.which("firefox")


FIREFOX_PREFS = {
    "browser.shell.checkDefaultBrowser": False,
    "datareporting.policy.dataSubmissionEnabled": False,
    "toolkit.telemetry.reportingpolicy.firstRun": False,
    "browser.aboutwelcome.enabled": False,
    "extensions.update.enabled": False,
    "app.update.disabledForTesting": True,
    "xpinstall.signatures.required": False,
}


def _bidi_value(remote: dict):
    if remote.get("type") == "string":
        return remote["value"]
    if remote.get("type") in ("null", "undefined"):
        return None
    return remote.get("value")


class FirefoxPage(Page):
    def __init__(self, browser: "Firefox", context: str):
        self.browser = browser
        self.context = context

    def evaluate(self, expression: str, timeout: float = STEP_TIMEOUT):
        result = self.browser.conn.call("script.evaluate", {
            "expression": self.wrap(expression), "target": {"context": self.context},
            "awaitPromise": True, "userActivation": True, "resultOwnership": "none"}, timeout=timeout)
        if result.get("type") == "exception":
            details = result["exceptionDetails"]
            raise PageError(details.get("text") or json.dumps(details.get("exception")))
        return json.loads(_bidi_value(result["result"]))

    def navigate(self, url: str) -> None:
        self.browser.conn.call("browsingContext.navigate", {"context": self.context, "url": url, "wait": "complete"})

    def press(self, key: str, closes: bool = False) -> None:
        """A trusted key press. `closes`: the key may close this page (an extension window's answer)."""
        _, value = KEYS[key]
        try:
            self.browser.conn.call("input.performActions", {"context": self.context, "actions": [
                {"type": "key", "id": "keyboard", "actions": [{"type": "keyDown", "value": value},
                                                              {"type": "keyUp", "value": value}]}]},
                timeout=5 if closes else STEP_TIMEOUT)
            self.browser.conn.call("input.releaseActions", {"context": self.context},
                                   timeout=5 if closes else STEP_TIMEOUT)
        except (BrowserError, TimeoutError, ConnectionError):
            if not closes:
                raise

    def click_at(self, x: float, y: float, closes: bool = False) -> None:
        """A trusted mouse click at the viewport point (x, y), as a person's (BiDi input actions).
        `closes`: the click may close this page (an extension window's answer)."""
        try:
            self.browser.conn.call("input.performActions", {"context": self.context, "actions": [
                {"type": "pointer", "id": "mouse", "parameters": {"pointerType": "mouse"}, "actions": [
                    {"type": "pointerMove", "x": int(x), "y": int(y)}, {"type": "pointerDown", "button": 0},
                    {"type": "pointerUp", "button": 0}]}]}, timeout=5 if closes else STEP_TIMEOUT)
            self.browser.conn.call("input.releaseActions", {"context": self.context},
                                   timeout=5 if closes else STEP_TIMEOUT)
        except (BrowserError, TimeoutError, ConnectionError):
            if not closes:
                raise

    def type_text(self, text: str) -> None:
        keys = [action for char in text for action in ({"type": "keyDown", "value": char}, {"type": "keyUp", "value": char})]
        self.browser.conn.call("input.performActions", {"context": self.context, "actions": [
            {"type": "key", "id": "keyboard", "actions": keys}]})
        self.browser.conn.call("input.releaseActions", {"context": self.context})

    def close(self) -> None:
        self.browser.conn.call("browsingContext.close", {"context": self.context})


class Firefox(Browser):
    """Debian's firefox-esr, headless, over WebDriver BiDi, with the extension installed through
    `webExtension.install` (a temporary add-on: unsigned, its gecko id from the manifest).
    Native-messaging host manifests are looked up under `home`'s ~/.mozilla/native-messaging-hosts."""

    name = "firefox"

    def __init__(self, extension: str, home: str, env: dict | None = None):
        path = firefox_path()
        if path is None:
            raise FileNotFoundError("Debian's firefox-esr is not installed (apt-get install firefox-esr)")
        self.profile = tempfile.mkdtemp(prefix="passkeyd-firefox-")
        with open(os.path.join(self.profile, "user.js"), "w") as prefs:
            for key, value in FIREFOX_PREFS.items():
                prefs.write(f"user_pref({json.dumps(key)}, {json.dumps(value)});\n")
        self.log = tempfile.TemporaryFile()
        self.process = subprocess.Popen(
            [path, "--headless", "--no-remote", "--profile", self.profile, "--remote-debugging-port=0", "about:blank"],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True,
            env={**os.environ, "HOME": home, "MOZ_CRASHREPORTER_DISABLE": "1", **(env or {})})
        self.lines: queue.Queue = queue.Queue()
        threading.Thread(target=self._drain, daemon=True).start()
        try:
            url = self._bidi_url()
            self.conn = Connection(url + "/session")
            session = self.conn.call("session.new", {"capabilities": {}})
            self.version = f"Firefox {session['capabilities'].get('browserVersion', '?')}"
            self.extension = self.conn.call("webExtension.install", {
                "extensionData": {"type": "path", "path": os.path.abspath(extension)}})["extension"]
        except BaseException:
            self.close()
            raise

    def _drain(self) -> None:
        for line in self.process.stderr:
            self.log.write(line)
            self.lines.put(line.decode(errors="replace"))

    def _bidi_url(self) -> str:
        deadline = time.monotonic() + STEP_TIMEOUT
        while time.monotonic() < deadline:
            try:
                line = self.lines.get(timeout=0.5)
            except queue.Empty:
                if self.process.poll() is not None:
                    raise RuntimeError(f"firefox exited with {self.process.returncode}: {self.output()}")
                continue
            found = re.search(r"WebDriver BiDi listening on (ws://\S+)", line)
            if found:
                return found.group(1)
        raise TimeoutError(f"firefox did not open WebDriver BiDi: {self.output()}")

    def _open_tab(self) -> FirefoxPage:
        return FirefoxPage(self, self.conn.call("browsingContext.create", {"type": "tab"})["context"])

    def wait_for_page(self, url_prefix: str, timeout: float = STEP_TIMEOUT) -> FirefoxPage:
        """A top-level page the browser opened itself (window.open), once its URL starts with `url_prefix`."""
        context = poll(lambda: next((c for c in self.conn.call("browsingContext.getTree", {"maxDepth": 0})["contexts"]
                                     if c["url"].startswith(url_prefix)), None),
                       timeout, f"no page at {url_prefix}")
        return FirefoxPage(self, context["context"])

    def extension_pages(self, path: str) -> list[FirefoxPage]:
        """The extension's own pages open at `path` (its approval window): top-level browsing
        contexts at moz-extension:// URLs, which WebDriver BiDi lists and drives like any other."""
        contexts = self.conn.call("browsingContext.getTree", {"maxDepth": 0})["contexts"]
        return [FirefoxPage(self, c["context"]) for c in contexts
                if c["url"].startswith("moz-extension://") and c["url"].split("#")[0].endswith("/" + path)]

    def extension_ready(self, timeout: float = STEP_TIMEOUT) -> None:
        return None  # webExtension.install returns once the add-on has started

    def close(self) -> None:
        if getattr(self, "conn", None):
            try:
                self.conn.call("browser.close", timeout=10)
            except Exception:
                pass
            self.conn.close()
        _kill(self.process)
        self.log.close()
        shutil.rmtree(self.profile, ignore_errors=True)
