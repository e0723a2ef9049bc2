"""Fixtures: a real passkeyd per test module, on a temp socket and data directory."""

from __future__ import annotations

import os

import pytest

from fido2.client import DefaultClientDataCollector, Fido2Client, UserInteraction

from passkeyd_hid import Daemon, daemon_binary

# passkeyd_fido2's pytest plugin (integrations/python) starts this tree's passkeyd.
os.environ.setdefault("PASSKEYD_BIN", daemon_binary())

ORIGIN = "https://example.com"
RP_ID = "example.com"

# webtests/ is a suite of its own (test_web_frameworks.py runs it in a pytest of its own, once per
# authenticator). Its conftest.py is also a module named `conftest`: collected here it would take
# this one's place in sys.modules, and a later `from conftest import make_client` would fail.
collect_ignore = [] if os.environ.get("WEBTESTS_AUTHENTICATOR") else ["webtests"]


class ApprovingInteraction(UserInteraction):
    """A user who allows built-in UV and has no PIN to give."""

    def __init__(self, on_prompt=None):
        self.on_prompt = on_prompt
        self.prompts = 0

    def prompt_up(self):
        self.prompts += 1
        if self.on_prompt:
            self.on_prompt()

    def request_pin(self, permissions, rp_id):
        return None

    def request_uv(self, permissions, rp_id):
        return True


@pytest.fixture(scope="module")
def daemon_factory():
    """Starts daemons with given flags; stops every one with SIGTERM at module end."""
    started: list[Daemon] = []

    def start(*flags: str, data_dir: str | None = None) -> Daemon:
        d = Daemon(*flags, data_dir=data_dir).start()
        started.append(d)
        return d

    yield start
    failures = []
    for d in started:
        if d.alive():
            code = d.stop()
            if code != 0:
                failures.append(f"passkeyd exited {code} on SIGTERM:\n{d.log()}")
    # Only once all are stopped: a restarted daemon may be using an earlier one's data directory.
    for d in started:
        d.remove()
    assert not failures, "\n".join(failures)


@pytest.fixture(scope="module")
def daemon(daemon_factory) -> Daemon:
    """Presence approved at once, built-in UV configured (named, not left to defaults)."""
    return daemon_factory("--presence", "auto", "--uv", "auto")


def make_client(dev, origin: str = ORIGIN, interaction: UserInteraction | None = None) -> Fido2Client:
    return Fido2Client(
        dev,
        client_data_collector=DefaultClientDataCollector(origin),
        user_interaction=interaction or ApprovingInteraction(),
    )


@pytest.fixture
def device(daemon):
    dev = daemon.device()
    yield dev
    dev.close()


@pytest.fixture
def client(device):
    return make_client(device)
