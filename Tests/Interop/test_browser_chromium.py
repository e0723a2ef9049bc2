"""Debian's headless Chromium with the passkeyd extension and native host, against a real
passkeyd, on pages of a py_webauthn relying party (the flows: browser_suite.py)."""

from __future__ import annotations

import pytest

from browser_driver import chromium_path
from browser_flows import RelyingParty, Session, register
from browser_suite import *  # noqa: F401,F403  (the shared fixtures and tests)

pytestmark = pytest.mark.skipif(chromium_path() is None, reason="Debian's chromium is not installed (make deps)")


@pytest.fixture(scope="module")
def kind():
    return "chromium"


def test_passkeyd_not_running_is_a_clear_error(tmp_path):
    """The host is installed but nothing listens on its socket: the page gets NotAllowedError
    saying so (the options page's fallback is off by default)."""
    session = Session("chromium", str(tmp_path / "nobody-here.sock"))
    site = RelyingParty().start()
    try:
        page = session.page(site)
        outcome = register(page, "nobody")
        assert outcome["error"]["name"] == "NotAllowedError", outcome
        assert "passkeyd" in outcome["error"]["message"], outcome
        assert site.verified == []
    finally:
        site.stop()
        session.close()
