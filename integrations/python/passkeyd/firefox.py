"""Firefox ESR with the passkeyd add-on, bound to one passkeyd, over WebDriver BiDi.

    from passkeyd.testing import VirtualAuthenticator
    import passkeyd.firefox

    with VirtualAuthenticator() as authenticator, passkeyd.firefox.launch(authenticator) as firefox:
        firefox.navigate("http://localhost:8000/login")
        firefox.evaluate("document.querySelector('#passkey-sign-in').click()")
        firefox.wait_for("location.pathname === '/welcome'")

Neither Selenium's virtual authenticator nor Playwright gives Firefox a WebAuthn authenticator;
this gives it passkeyd. `launch` runs `passkeyctl browser install --firefox --automation` into a
HOME of the browser's own (Firefox reads native-messaging host manifests only from
~/.mozilla/native-messaging-hosts), bound to the authenticator's socket and marked as unattended
automation (passkeyd.launch_arguments: ceremonies are approved without asking anyone, a chooser
still asks between several accounts, a PIN is still asked); starts Firefox headless with a fresh
profile and WebDriver BiDi on a loopback port; and installs the extension as a temporary add-on
(`webExtension.install`: unsigned, its id the manifest's gecko id). Firefox comes from
`$PASSKEYD_FIREFOX`, else `firefox-esr` or `firefox` on PATH; geckodriver is not needed.

Python's standard library only: `WebSocket` is just enough of RFC 6455 for JSON text frames, and
`Connection` matches replies to commands. Tests/Interop/browser_driver.py drives Chromium's
DevTools protocol with the same two and uses `Firefox` as it is. Each step has a timeout, so
nothing waits forever on a browser that went away; `close()` always kills the browser.
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

__all__ = ["launch", "Firefox", "FirefoxPage", "Page", "BrowserError", "PageError", "firefox_path"]

#: How long one browser step may take (two busy cores, a cold profile).
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


class BrowserError(RuntimeError):
    """The browser answered a command with an error."""


class PageError(RuntimeError):
    """The page's script threw: the message is what it threw."""


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


class Page:
    """One tab, whatever the browser: `navigate`, `evaluate` (a JSON value, a promise awaited),
    `wait_for`, `press` (a trusted key press, as a user's), `type_text` (trusted text input into
    the focused field, as a user's typing). FirefoxPage fills it in (and browser_driver's
    ChromiumPage)."""

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
    """What every browser shares: a new tab at a URL, and the browser's own output for errors."""

    log: "tempfile._TemporaryFileWrapper"

    def _open_tab(self) -> Page:
        raise NotImplementedError

    def new_page(self, url: str = "about:blank") -> Page:
        page = self._open_tab()
        if url != "about:blank":
            page.navigate(url)
        return page

    def output(self) -> str:
        """The last of the browser's own output (stderr), for a failure's message."""
        self.log.seek(0)
        return self.log.read().decode(errors="replace")[-4000:]


def kill(process: subprocess.Popen | None) -> None:
    """SIGTERM to the browser's process group (it was started in a session of its own), SIGKILL
    if it is still there 10 s later."""
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


def firefox_path() -> str | None:
    """`$PASSKEYD_FIREFOX`, else Debian's `firefox-esr` or a `firefox` on PATH; None when there is none."""
    return os.environ.get("PASSKEYD_FIREFOX") or shutil.which("firefox-esr") or shutil.which("firefox")


#: The profile's user.js: no first-run pages, updates or telemetry; unsigned temporary add-ons.
FIREFOX_PREFS = {
    "browser.shell.checkDefaultBrowser": False,
    "datareporting.policy.dataSubmissionEnabled": False,
    "toolkit.telemetry.reportingpolicy.firstRun": False,
    "browser.aboutwelcome.enabled": False,
    "extensions.update.enabled": False,
    "app.update.disabledForTesting": True,
    "xpinstall.signatures.required": False,
}

#: WebDriver's key values (WebDriver §17.4.2, "keyboard actions") for the keys a person presses.
KEYS = {"ArrowDown": "\ue015", "ArrowUp": "\ue013", "Enter": "\ue007", "Escape": "\ue00c"}


def _bidi_value(remote: dict):
    if remote.get("type") == "string":
        return remote["value"]
    if remote.get("type") in ("null", "undefined"):
        return None
    return remote.get("value")


class FirefoxPage(Page):
    """A top-level browsing context (a tab, or a window the extension opened)."""

    def __init__(self, browser: "Firefox", context: str):
        self.browser = browser
        self.context = context

    def evaluate(self, expression: str, timeout: float = STEP_TIMEOUT, user_activation: bool = True):
        """`expression`'s value (a promise awaited) as JSON. `user_activation`: it runs as right
        after a person's click (transient activation, which a browser may want before a ceremony)."""
        result = self.browser.conn.call("script.evaluate", {
            "expression": self.wrap(expression), "target": {"context": self.context},
            "awaitPromise": True, "userActivation": user_activation, "resultOwnership": "none"}, timeout=timeout)
        if result.get("type") == "exception":
            details = result["exceptionDetails"]
            raise PageError(details.get("text") or json.dumps(details.get("exception")))
        return json.loads(_bidi_value(result["result"]))

    def navigate(self, url: str) -> None:
        """Loads `url` and returns once its document is complete."""
        self.browser.conn.call("browsingContext.navigate", {"context": self.context, "url": url, "wait": "complete"})

    def press(self, key: str, closes: bool = False) -> None:
        """A trusted key press. `closes`: the key may close this page (an extension window's answer)."""
        value = KEYS[key]
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
    """Firefox over WebDriver BiDi with the unpacked extension at `extension` installed through
    `webExtension.install` (a temporary add-on: unsigned, its gecko id from the manifest), in a
    temporary profile removed by `close()`. Native-messaging host manifests are looked up under
    `home`'s ~/.mozilla/native-messaging-hosts: `passkeyctl browser install --firefox` with that
    HOME puts one there (`launch` does both).

    `page` is the tab Firefox opened with; `navigate`, `evaluate`, `wait_for`, `press` and
    `type_text` act on it. `new_page(url)` opens another tab. A context manager: the `with`
    block closes it."""

    name = "firefox"

    def __init__(self, extension: str, home: str, env: dict | None = None, *, binary: str | None = None,
                 headless: bool = True, prefs: dict | None = None, accept_insecure_certs: bool = False):
        path = binary or firefox_path()
        if path is None:
            raise FileNotFoundError("Firefox is not installed (apt-get install firefox-esr) and PASSKEYD_FIREFOX is not set")
        self.home = home
        self.conn: Connection | None = None
        self.process: subprocess.Popen | None = None
        #: Folders `close()` removes besides the profile (launch's own HOME).
        self.remove_on_close: list[str] = []
        #: What `launch` installed (passkeyd.launch_arguments.FirefoxInstall: the host manifest,
        #: its socket, automation); None for a Firefox started on its own.
        self.installed = None
        self.profile = tempfile.mkdtemp(prefix="passkeyd-firefox-")
        with open(os.path.join(self.profile, "user.js"), "w") as user_js:
            for key, value in {**FIREFOX_PREFS, **(prefs or {})}.items():
                user_js.write(f"user_pref({json.dumps(key)}, {json.dumps(value)});\n")
        self.log = tempfile.TemporaryFile()
        self.lines: queue.Queue = queue.Queue()
        try:
            self.process = subprocess.Popen(
                [path, *(["--headless"] if headless else []), "--no-remote", "--profile", self.profile,
                 "--remote-debugging-port=0", "about:blank"],
                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True,
                env={**os.environ, "HOME": home, "MOZ_CRASHREPORTER_DISABLE": "1", **(env or {})})
            threading.Thread(target=self._drain, daemon=True).start()
            url = self._bidi_url()
            self.conn = Connection(url + "/session")
            # acceptInsecureCerts (W3C WebDriver §7, Capabilities, which WebDriver BiDi's
            # session.new takes): a page whose certificate Firefox cannot verify (a local
            # server's self-signed one) loads as if it could.
            capabilities = {"alwaysMatch": {"acceptInsecureCerts": True}} if accept_insecure_certs else {}
            session = self.conn.call("session.new", {"capabilities": capabilities})
            self.version = f"Firefox {session['capabilities'].get('browserVersion', '?')}"
            self.extension = self.conn.call("webExtension.install", {
                "extensionData": {"type": "path", "path": os.path.abspath(extension)}})["extension"]
            tabs = [c for c in self.conn.call("browsingContext.getTree", {"maxDepth": 0})["contexts"]
                    if not c["url"].startswith("moz-extension://")]
            self.page = FirefoxPage(self, tabs[0]["context"]) if tabs else self._open_tab()
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
                    raise RuntimeError(f"firefox exited with {self.process.returncode}: {self.output()}") from None
                continue
            found = re.search(r"WebDriver BiDi listening on (ws://\S+)", line)
            if found:
                return found.group(1)
        raise TimeoutError(f"firefox did not open WebDriver BiDi: {self.output()}")

    def _open_tab(self) -> FirefoxPage:
        return FirefoxPage(self, self.conn.call("browsingContext.create", {"type": "tab"})["context"])

    # The first tab's surface, for a test that needs only one.

    def navigate(self, url: str) -> None:
        self.page.navigate(url)

    def evaluate(self, expression: str, timeout: float = STEP_TIMEOUT, user_activation: bool = True):
        return self.page.evaluate(expression, timeout=timeout, user_activation=user_activation)

    def wait_for(self, expression: str, timeout: float = STEP_TIMEOUT):
        return self.page.wait_for(expression, timeout=timeout)

    def press(self, key: str, closes: bool = False) -> None:
        self.page.press(key, closes=closes)

    def type_text(self, text: str) -> None:
        self.page.type_text(text)

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
        if self.conn is not None:
            try:
                self.conn.call("browser.close", timeout=10)
            except Exception:
                pass
            self.conn.close()
        kill(self.process)
        self.log.close()
        for folder in [self.profile, *self.remove_on_close]:
            shutil.rmtree(folder, ignore_errors=True)

    def __enter__(self) -> "Firefox":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def launch(authenticator, home: str | None = None, binary: str | None = None, headless: bool = True, *,
           passkeyctl: str | None = None, extension: str | None = None, prefs: dict | None = None,
           accept_insecure_certs: bool = False) -> Firefox:
    """Firefox with the passkeyd add-on, its host installed into `home` (default: a temporary
    folder, removed by `close()`) for `authenticator`'s socket (a
    passkeyd.testing.VirtualAuthenticator, or anything with `.socket`) and marked as unattended
    automation. `binary`: Firefox (default `$PASSKEYD_FIREFOX`, else firefox-esr or firefox on
    PATH); `extension`: the unpacked add-on (default the one beside passkeyctl, as `passkeyctl
    browser args` finds it); `prefs`: more user.js preferences; `accept_insecure_certs`: pages
    load over https whatever their certificate (a local server's self-signed one), as Selenium's
    option of that name and Playwright's `ignore_https_errors` do. Returns once the add-on runs."""
    # Here, not at the top: browser_driver.py loads this file on its own under a python3 without
    # python-fido2 (which the package needs), and uses only the driver above.
    from .launch_arguments import LaunchError, firefox_install

    binary = binary or firefox_path()
    if binary is None:
        raise LaunchError("Firefox is not installed (apt-get install firefox-esr) and PASSKEYD_FIREFOX is not set")
    own_home = home is None
    home = tempfile.mkdtemp(prefix="passkeyd-firefox-home-") if own_home else os.path.abspath(home)
    try:
        installed = firefox_install(authenticator.socket, home, passkeyctl, authenticator, extension=extension)
        firefox = Firefox(installed.extension, home=installed.home, env=installed.environment, binary=binary,
                          headless=headless, prefs=prefs, accept_insecure_certs=accept_insecure_certs)
    except BaseException:
        if own_home:
            shutil.rmtree(home, ignore_errors=True)
        raise
    firefox.installed = installed
    if own_home:
        firefox.remove_on_close.append(home)
    return firefox
