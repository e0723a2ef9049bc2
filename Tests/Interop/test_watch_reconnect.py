"""`passkeyctl watch` outlives a daemon restart: it says the daemon went away, waits for it, says
it is back, and goes on printing events; `--once` ends with the daemon instead."""

from __future__ import annotations

import json
import os
import queue
import subprocess
import threading
import time

from passkeyd_pin import passkeyctl_binary, set_pin
from test_test_controls import Account

TIMEOUT = 60.0


class Watcher:
    """`passkeyctl --json watch` with its two output streams read line by line in threads."""

    def __init__(self, socket: str, *flags: str):
        env = {k: v for k, v in os.environ.items() if not k.startswith("PASSKEY")}
        self.process = subprocess.Popen([passkeyctl_binary(), "--socket", socket, "--json", "watch", *flags],
                                        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                                        start_new_session=True)
        self.out: queue.Queue = queue.Queue()
        self.err: queue.Queue = queue.Queue()
        self.said: list[str] = []
        for stream, into in ((self.process.stdout, self.out), (self.process.stderr, self.err)):
            threading.Thread(target=lambda s=stream, q=into: [q.put(line) for line in s] and None, daemon=True).start()

    def says(self, words: str) -> str:
        """The next stderr line containing `words` (earlier lines are kept in `said`)."""
        deadline = time.monotonic() + TIMEOUT
        while time.monotonic() < deadline:
            try:
                line = self.err.get(timeout=0.5)
            except queue.Empty:
                continue
            self.said.append(line)
            if words in line:
                return line
        raise TimeoutError(f"watch never said {words!r}; it said {self.said}")

    def event(self, kind: str) -> dict:
        deadline = time.monotonic() + TIMEOUT
        while time.monotonic() < deadline:
            try:
                event = json.loads(self.out.get(timeout=0.5))
            except queue.Empty:
                continue
            if event["event"] == kind:
                return event
        raise TimeoutError(f"no {kind} event; watch said {self.said}")

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
        self.process.wait(10)


def test_watch_keeps_printing_events_across_a_daemon_restart(daemon_factory):
    d = daemon_factory("--presence", "auto", "--uv", "auto")
    watcher = Watcher(d.socket)
    try:
        watcher.says("Watching passkeyd on")
        set_pin(d.socket)
        assert watcher.event("pin.set")["event"] == "pin.set"

        assert d.stop() == 0
        assert "went away; waiting for it to come back" in watcher.says("went away")
        time.sleep(1.5)  # a few retries find nobody listening, and watch keeps waiting
        assert watcher.process.poll() is None, f"watch ended with the daemon: {watcher.said}"

        d.start()
        watcher.says("is back; watching again")
        device = d.device()
        try:
            account = Account(device, "after-restart")
        finally:
            device.close()
        added = watcher.event("credential.added")
        assert added["rpId"] == account.rp_id
        assert watcher.process.poll() is None
    finally:
        watcher.stop()


def test_watch_once_ends_with_the_daemon(daemon_factory):
    d = daemon_factory("--presence", "auto", "--uv", "auto")
    watcher = Watcher(d.socket, "--once")
    try:
        watcher.says("Watching passkeyd on")
        assert d.stop() == 0
        watcher.process.wait(TIMEOUT)
        # The stream's end is the daemon's: no reconnection, and the daemon-gone failure (exit 3).
        stderr = "".join(watcher.said) + "".join(iter_queue(watcher.err))
        assert "waiting for it to come back" not in stderr
        assert watcher.process.returncode != 0, stderr
    finally:
        watcher.stop()


def iter_queue(q: queue.Queue):
    while True:
        try:
            yield q.get_nowait()
        except queue.Empty:
            return
