"""Debian's headless Firefox ESR with the passkeyd extension and native host, against a real
passkeyd, on pages of a py_webauthn relying party (the flows: browser_suite.py); and one
passkey for every browser and the CLI."""

from __future__ import annotations

import json
import subprocess

import pytest

from browser_driver import chromium_path, firefox_path
from browser_flows import ALGORITHMS, Session, assert_registered, assert_signed_in, new_name, register, sign_in
from browser_suite import *  # noqa: F401,F403  (the shared fixtures and tests)
from passkeyd_pin import passkeyctl_binary

pytestmark = pytest.mark.skipif(firefox_path() is None, reason="Debian's firefox-esr is not installed (make deps)")


@pytest.fixture(scope="module")
def kind():
    return "firefox"


@pytest.mark.skipif(chromium_path() is None, reason="Debian's chromium is not installed (make deps)")
def test_a_passkey_registered_in_chromium_signs_in_from_firefox_and_the_cli(session, rp, daemon, tmp_path):
    name = new_name("everywhere")
    chromium = Session("chromium", daemon.socket)
    try:
        page = chromium.page(rp)
        assert_registered(register(page, name), rp, name, ALGORITHMS["ES256"])
    finally:
        chromium.close()
    firefox_page = session.page(rp)
    try:
        assert_signed_in(sign_in(firefox_page), rp, name)
    finally:
        firefox_page.close()
    # passkeyctl webauthn get: the same options a page would get, the same server verifying.
    options = tmp_path / "options.json"
    options.write_text(json.dumps(rp.handle("/login/options", {})))
    done = subprocess.run([passkeyctl_binary(), "--socket", daemon.socket, "webauthn", "get", "--origin", rp.origin,
                           "--options", str(options)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    verified = rp.handle("/login/verify", {"credential": json.loads(done.stdout)})
    assert verified["verified"] is True and verified["user"] == name, verified
