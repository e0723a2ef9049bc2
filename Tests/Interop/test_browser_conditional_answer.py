"""The opt-in control that answers the next conditional (AutoFill) request unasked (issue 41):
passkeyd.testing's `answer_next_conditional_request`, consulted by the browser host in real
Chromium. Chrome's virtual authenticator answers every conditional request with no pick; passkeyd
does only when a test arms it, once, and otherwise waits for the person's pick as a browser does."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "integrations" / "python"))

from browser_driver import chromium_path  # noqa: E402
from browser_flows import ALGORITHMS, RelyingParty, Session, assert_registered, assert_signed_in, new_name, register  # noqa: E402
from passkeyd.testing import VirtualAuthenticator  # noqa: E402

pytestmark = pytest.mark.skipif(chromium_path() is None, reason="Debian's chromium is not installed (make deps)")


@pytest.fixture(scope="module")
def authenticator():
    with VirtualAuthenticator() as va:
        yield va


@pytest.fixture(scope="module")
def session(authenticator):
    s = Session("chromium", authenticator.socket)
    yield s
    s.close()


def conditional_outcome(session: Session, rp: RelyingParty, seconds: float):
    """Opens the site's AutoFill page (its conditional get() starts on load) and, without any
    focus, pick or key, returns what the request settled with within `seconds`, or None."""
    page = session.page(rp, "/conditional")
    try:
        page.evaluate("window.conditional.then((v) => window.conditionalDone = v), true")
        try:
            return page.wait_for("window.conditionalDone", timeout=seconds)
        except Exception:
            return None
    finally:
        page.close()


def register_on_a_page(session: Session, rp: RelyingParty, name: str) -> None:
    setup = session.page(rp)
    try:
        assert_registered(register(setup, name), rp, name, ALGORITHMS["ES256"])
    finally:
        setup.close()


def test_an_armed_answer_completes_the_next_conditional_request_once(session, authenticator):
    rp = RelyingParty().start()
    try:
        name = new_name("autofill")
        register_on_a_page(session, rp, name)
        credential = next(c for c in authenticator.get_credentials() if c.rp_id == "localhost")

        authenticator.answer_next_conditional_request(credential.credential_id)
        assert_signed_in(conditional_outcome(session, rp, 60), rp, name)
        # Taken once: the next conditional request waits for a pick again, as a browser's does.
        assert conditional_outcome(session, rp, 3) is None
        assert authenticator.controls().get("conditional") is None
    finally:
        rp.stop()


def test_without_an_armed_answer_a_conditional_request_waits_for_the_pick(session, authenticator):
    rp = RelyingParty().start()
    try:
        register_on_a_page(session, rp, new_name("waits"))
        assert conditional_outcome(session, rp, 3) is None
    finally:
        rp.stop()
