"""WebAuthn from a web page on a U2F-only key (issue 41): `VirtualAuthenticator(protocol="u2f")`
answers CTAPHID_MSG alone, and the browser host's PasskeyClient speaks CTAP1/U2F to it as
Chromium does (CTAP 2.1 §10): create() is U2F_REGISTER with a fido-u2f attestation that
py_webauthn verifies (WebAuthn L3 §8.6), get() is U2F_AUTHENTICATE over the allow list. What U2F
cannot do fails as Chromium fails it. `passkeyctl webauthn` on a `--profile u2f` daemon too."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import webauthn
from webauthn.helpers.structs import (AttestationConveyancePreference, AuthenticatorSelectionCriteria,
                                      PublicKeyCredentialDescriptor, ResidentKeyRequirement,
                                      UserVerificationRequirement)

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "integrations" / "python"))

from browser_driver import chromium_path, firefox_path  # noqa: E402
from browser_flows import (ALGORITHMS, RelyingParty, Session, assert_registered, assert_signed_in, base64url,  # noqa: E402
                           new_name, register, sign_in)
from conftest import ORIGIN, RP_ID  # noqa: E402
from passkeyd.testing import VirtualAuthenticator  # noqa: E402
from passkeyd_pin import passkeyctl_binary  # noqa: E402

needs_chromium = pytest.mark.skipif(chromium_path() is None, reason="Debian's chromium is not installed (make deps)")


class DirectAttestationSite(RelyingParty):
    """The test site, asking for attestation "direct": the fido-u2f statement reaches the server."""

    def handle(self, path: str, body: dict) -> dict:
        options = super().handle(path, body)
        if path == "/register/options":
            options["attestation"] = AttestationConveyancePreference.DIRECT.value
        return options


def error_name(outcome: dict) -> str | None:
    """The DOMException's name a page's ceremony failed with."""
    return (outcome.get("error") or {}).get("name")


@pytest.fixture(scope="module")
def authenticator():
    with VirtualAuthenticator(protocol="u2f") as va:
        assert va.status()["profile"] == "u2f"
        yield va


@pytest.fixture(scope="module")
def session(authenticator):
    s = Session("chromium", authenticator.socket)
    yield s
    s.close()


@pytest.fixture(scope="module")
def firefox(authenticator):
    s = Session("firefox", authenticator.socket)
    yield s
    s.close()


@pytest.fixture()
def site():
    rp = DirectAttestationSite().start()
    yield rp
    rp.stop()


def registers_and_signs_in(page, site) -> None:
    """create() through U2F_REGISTER (fido-u2f, verified), then two get()s whose counter rises."""
    name = new_name("u2f")
    outcome = register(page, name, resident=False)
    assert_registered(outcome, site, name, ALGORITHMS["ES256"])
    assert outcome["server"]["format"] == "fido-u2f", outcome["server"]
    assert outcome["server"]["signCount"] == 0
    signed = sign_in(page, {"allow": [name]})
    assert_signed_in(signed, site, name)
    assert signed["server"]["signCount"] >= 1, "U2F's counter, verified by py_webauthn"
    again = sign_in(page, {"allow": [name]})
    assert_signed_in(again, site, name)
    assert again["server"]["signCount"] > signed["server"]["signCount"]


@needs_chromium
def test_a_page_registers_and_signs_in_on_a_u2f_only_key(session, site):
    page = session.page(site)
    try:
        registers_and_signs_in(page, site)
    finally:
        page.close()


@pytest.mark.skipif(firefox_path() is None, reason="Debian's firefox-esr is not installed (make deps)")
def test_firefox_registers_and_signs_in_on_a_u2f_only_key(firefox, site):
    """The same page in Firefox ESR: its extension reaches the same host, whose client speaks U2F."""
    page = firefox.page(site)
    try:
        registers_and_signs_in(page, site)
    finally:
        page.close()


@needs_chromium
def test_a_pages_u2f_registration_is_listed_and_removed_as_chromes(authenticator, session, site):
    """What the page registered through U2F is in get_credentials(), as Chrome's virtual U2F
    authenticator lists it (no RP ID, no user handle, not resident); removed, the page's next
    sign-in finds nothing (NotAllowedError), and another credential of the same page still signs in."""
    page = session.page(site)
    try:
        name, other = new_name("u2f-listed"), new_name("u2f-kept")
        assert_registered(register(page, name, resident=False), site, name, ALGORITHMS["ES256"])
        assert_registered(register(page, other, resident=False), site, other, ALGORITHMS["ES256"])
        ids = {n: site.accounts[n].credential_id for n in (name, other)}
        listed = {c.credential_id: c for c in authenticator.get_credentials()}
        for credential_id in ids.values():
            credential = listed[credential_id]
            assert (credential.rp_id, credential.user_handle, credential.is_resident_credential) == (None, None, False)
        assert set(ids.values()) <= {c.credential_id for c in authenticator.get_credentials("localhost")}
        authenticator.remove_credential(ids[name])
        assert error_name(sign_in(page, {"allow": [name]})) == "NotAllowedError"
        assert_signed_in(sign_in(page, {"allow": [other]}), site, other)
    finally:
        page.close()


@needs_chromium
def test_what_a_u2f_key_cannot_do_fails_as_chromium_fails_it(session, site):
    page = session.page(site)
    try:
        name = new_name("u2f-refused")
        # A required discoverable credential: no suitable authenticator, NotAllowedError.
        refused = register(page, name, resident=True)
        assert error_name(refused) == "NotAllowedError", refused
        assert_registered(register(page, name, resident=False), site, name, ALGORITHMS["ES256"])
        # The exclude list names the key's own credential: InvalidStateError after the touch.
        excluded = register(page, name, resident=False, exclude=True)
        assert error_name(excluded) == "InvalidStateError", excluded
        # No allow list: a U2F key finds nothing by itself.
        unlisted = sign_in(page, {})
        assert error_name(unlisted) == "NotAllowedError", unlisted
    finally:
        page.close()


def passkeyctl_webauthn(socket: str, ceremony: str, options_json: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [passkeyctl_binary(), "webauthn", ceremony, "--socket", socket, "--origin", ORIGIN],
        input=options_json.encode(), capture_output=True, timeout=120)


def test_passkeyctl_webauthn_registers_and_signs_in_on_a_u2f_daemon(authenticator):
    options = webauthn.generate_registration_options(
        rp_id=RP_ID, rp_name="Example", user_name="ulla", user_id=b"ulla", user_display_name="Ulla",
        attestation=AttestationConveyancePreference.DIRECT,
        authenticator_selection=AuthenticatorSelectionCriteria(
            resident_key=ResidentKeyRequirement.DISCOURAGED, user_verification=UserVerificationRequirement.DISCOURAGED))
    created = passkeyctl_webauthn(authenticator.socket, "create", webauthn.options_to_json(options))
    assert created.returncode == 0, created.stderr.decode()
    registration = webauthn.verify_registration_response(
        credential=created.stdout.decode(), expected_challenge=options.challenge, expected_rp_id=RP_ID,
        expected_origin=ORIGIN)
    assert registration.fmt == "fido-u2f"

    request = webauthn.generate_authentication_options(
        rp_id=RP_ID, allow_credentials=[PublicKeyCredentialDescriptor(id=registration.credential_id)],
        user_verification=UserVerificationRequirement.DISCOURAGED)
    got = passkeyctl_webauthn(authenticator.socket, "get", webauthn.options_to_json(request))
    assert got.returncode == 0, got.stderr.decode()
    response = json.loads(got.stdout)
    assert response["response"].get("userHandle") is None
    assert response["id"] == base64url(registration.credential_id)
    verified = webauthn.verify_authentication_response(
        credential=got.stdout.decode(), expected_challenge=request.challenge, expected_rp_id=RP_ID,
        expected_origin=ORIGIN, credential_public_key=registration.credential_public_key,
        credential_current_sign_count=registration.sign_count)
    assert verified.new_sign_count >= 1
