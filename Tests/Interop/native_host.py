"""The browser's side of native messaging, for driving `passkeyctl browser host` as Chromium does:
a 32-bit native-endian length, then UTF-8 JSON, on the host's standard input and output
(Chrome's and MDN's "Native messaging" pages)."""

from __future__ import annotations

import json
import os
import queue
import struct
import subprocess
import threading
import time

PASSKEYCTL = os.environ.get("PASSKEYCTL_BIN", os.path.join(os.path.dirname(__file__), "../../.build/debug/passkeyctl"))
EXTENSION_ORIGIN = "chrome-extension://pfihbggmphfibgnabamfmgdfgmnhjkdg/"
# Generous: two busy cores, a debug build, four helpers' builds at once.
WAIT = 60.0


def frame(body: bytes) -> bytes:
    return struct.pack("=I", len(body)) + body


class NativeHost:
    """One port: the host process started as a browser starts it, and the messages it sent."""

    def __init__(self, socket: str | None, *, command: list[str] | None = None, env: dict | None = None,
                 automation: bool = True):
        # `--automation`: no one is asked to approve a ceremony (no `confirm` question), as these
        # tests drive the host unattended; automation=False makes the host ask, as for a person.
        mode = ["--automation"] if automation else []
        args = command or [PASSKEYCTL, "browser", "host", *mode, *(["--socket", socket] if socket else []),
                           EXTENSION_ORIGIN]
        self.process = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                        env=env)
        self.messages: queue.Queue = queue.Queue()
        self.stderr = b""
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        self._next = 0

    def _read(self) -> None:
        out = self.process.stdout
        while True:
            head = out.read(4)
            if len(head) < 4:
                self.messages.put(None)
                return
            (length,) = struct.unpack("=I", head)
            self.messages.put(json.loads(out.read(length)))

    def send_raw(self, data: bytes) -> None:
        self.process.stdin.write(data)
        self.process.stdin.flush()

    def send(self, message: dict) -> None:
        self.send_raw(frame(json.dumps(message).encode()))

    def request(self, type_: str, origin: str = "https://example.com", top_origin: str | None = None, **members) -> str:
        """Sends a request with a fresh id and the caller's origins; returns the id."""
        self._next += 1
        rid = f"1:{self._next}"
        self.send({"type": type_, "id": rid, "origin": origin, "topOrigin": top_origin or origin, **members})
        return rid

    def next(self, timeout: float = WAIT, *, skip_status: bool = True) -> dict | None:
        """The next message (None when the host closed its output); `status` messages are skipped."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                message = self.messages.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                raise AssertionError(f"the host sent nothing within {timeout} s") from None
            if message is None or not (skip_status and message.get("type") == "status"):
                return message

    def reply(self, rid: str, timeout: float = WAIT) -> dict:
        """The `result` or `error` for request `rid` (a chooser on the way is an error of the test)."""
        message = self.next(timeout)
        assert message is not None, f"the host closed the port: {self.finish()}"
        assert message.get("type") in ("result", "error") and message.get("id") == rid, message
        return message

    def call(self, type_: str, **members) -> dict:
        return self.reply(self.request(type_, **members))

    def finish(self, timeout: float = WAIT) -> tuple[int, str]:
        """Closes the port as the browser does and returns the host's exit status and standard error."""
        if not self.process.stdin.closed:
            try:
                self.process.stdin.close()
            except BrokenPipeError:
                pass
        code = self.process.wait(timeout=timeout)
        self.stderr = self.process.stderr.read()
        return code, self.stderr.decode()

    def close(self) -> None:
        if self.process.poll() is None:
            self.finish()
