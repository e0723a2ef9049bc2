"""Passkey registration and sign-in on a py_webauthn site, as a web developer's suite tests it
with a virtual authenticator: fixtures `authenticator`, `page` and `rp` (conftest.py).

Written against Chromium's own virtual authenticator (CDP `WebAuthn` domain); the same file runs
on passkeyd with only the fixtures swapped. Every outcome is checked on both sides: what the page
received and what the site's server verified.
"""

from __future__ import annotations

import secrets
import time

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed25519
from fido2 import cbor
from fido2.cose import ES256, EdDSA

from browser_flows import (ALGORITHMS, Account, assert_registered, assert_signed_in, base64url, new_name, register,
                           sign_in)

# Authenticator data flags (WebAuthn L3 §6.1).
UP, UV, BE, BS, AT = 0x01, 0x04, 0x08, 0x10, 0x40


def known_key(algorithm: str = "ES256") -> tuple[bytes, bytes]:
    """A P-256 or Ed25519 key the test knows: its PKCS#8 private key and its COSE public key."""
    if algorithm == "EdDSA":
        key, cose = ed25519.Ed25519PrivateKey.generate(), EdDSA
    else:
        key, cose = ec.generate_private_key(ec.SECP256R1()), ES256
    pkcs8 = key.private_bytes(serialization.Encoding.DER, serialization.PrivateFormat.PKCS8,
                              serialization.NoEncryption())
    return pkcs8, cbor.encode(dict(cose.from_cryptography_key(key.public_key())))


def add_known_account(rp, authenticator, resident: bool = True, sign_count: int = 0, algorithm: str = "ES256",
                      **options) -> Account:
    """A credential with a chosen ID and key put into the authenticator, and the account the
    site keeps for it — as a suite seeds a user who registered before the test."""
    name = new_name("known")
    pkcs8, public_key = known_key(algorithm)
    credential_id = secrets.token_bytes(32)
    authenticator.add_credential(credential_id=credential_id, rp_id=rp.rp_id, user_handle=name.encode(),
                                 private_key=pkcs8, sign_count=sign_count, is_resident_credential=resident,
                                 user_name=name, **options)
    account = Account(user_id=name.encode(), name=name, credential_id=credential_id, public_key=public_key,
                      sign_count=sign_count)
    rp.accounts[name] = account
    rp.credentials[credential_id] = account
    return account


def wait_for(condition, what: str, timeout: float = 30.0):
    """Events arrive on another thread: poll, generously (two busy cores)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def test_registration_then_sign_in_verified_by_the_site(authenticator, page, rp):
    added = []
    authenticator.on("credential_added", added.append)
    page.goto(rp.url())
    name = new_name("alice")
    registered = register(page, name)
    assert_registered(registered, rp, name, ALGORITHMS["ES256"])
    assert registered["page"]["flags"] & (UP | UV | AT) == UP | UV | AT

    [credential] = authenticator.get_credentials()
    assert base64url(credential.credential_id) == registered["page"]["id"]
    assert credential.rp_id == rp.rp_id and credential.user_handle == name.encode()
    assert credential.is_resident_credential is True
    wait_for(lambda: added, "credential_added")
    assert added[0].kind == "credential_added" and added[0].credential_id == credential.credential_id

    signed_in = sign_in(page)  # discoverable: no allow list
    assert_signed_in(signed_in, rp, name)
    assert signed_in["page"]["userHandle"] == name
    [asserted] = wait_for(lambda: authenticator.events("credential_asserted"), "credential_asserted")
    assert asserted.credential_id == credential.credential_id
    assert authenticator.get_credential(credential.credential_id).sign_count == signed_in["server"]["signCount"]


@pytest.mark.parametrize("algorithm", ["ES256", "EdDSA"])
def test_a_known_resident_key_signs_in_by_discovery(authenticator, page, rp, algorithm):
    account = add_known_account(rp, authenticator, sign_count=41, algorithm=algorithm)
    [stored] = authenticator.get_credentials()
    assert stored.credential_id == account.credential_id and stored.is_resident_credential is True
    assert stored.sign_count == 41

    page.goto(rp.url())
    outcome = sign_in(page)
    assert_signed_in(outcome, rp, account.name)
    assert outcome["page"]["userHandle"] == account.name
    assert outcome["server"]["signCount"] > 41


def test_a_known_non_resident_key_answers_its_allow_list_only(authenticator, page, rp):
    account = add_known_account(rp, authenticator, resident=False)
    [stored] = authenticator.get_credentials()
    assert stored.is_resident_credential is False

    page.goto(rp.url())
    discovered = sign_in(page)  # nothing discoverable for this site
    assert discovered["error"]["name"] == "NotAllowedError", discovered
    outcome = sign_in(page, {"allow": [account.name]})
    assert_signed_in(outcome, rp, account.name)


def test_a_bogus_signature_is_refused_by_the_site(authenticator, page, rp):
    account = add_known_account(rp, authenticator)
    page.goto(rp.url())
    authenticator.set_response_override_bits(is_bogus_signature=True)
    bogus = sign_in(page)
    assert "error" not in bogus, "the page gets a credential; only its signature is wrong"
    assert bogus["server"]["verified"] is False and "signature" in bogus["server"]["error"].lower(), bogus
    authenticator.set_response_override_bits(is_bogus_signature=False)
    assert_signed_in(sign_in(page), rp, account.name)


def test_backup_flags_of_a_known_key_reach_the_site(authenticator, page, rp):
    account = add_known_account(rp, authenticator, backup_eligible=True, backup_state=True)
    stored = authenticator.get_credential(account.credential_id)
    assert stored.backup_eligible is True and stored.backup_state is True

    page.goto(rp.url())
    synced = sign_in(page)
    assert_signed_in(synced, rp, account.name)
    assert synced["page"]["flags"] & (BE | BS) == BE | BS

    authenticator.set_credential_properties(account.credential_id, backup_state=False)
    assert authenticator.get_credential(account.credential_id).backup_state is False
    unsynced = sign_in(page)
    assert_signed_in(unsynced, rp, account.name)
    assert unsynced["page"]["flags"] & (BE | BS) == BE


@pytest.mark.virtual_authenticator(default_backup_eligibility=True, default_backup_state=True)
def test_a_synced_authenticator_registers_backed_up_credentials(authenticator, page, rp):
    page.goto(rp.url())
    name = new_name("synced")
    outcome = register(page, name)
    assert_registered(outcome, rp, name, ALGORITHMS["ES256"])
    assert outcome["page"]["flags"] & (BE | BS) == BE | BS
    [credential] = authenticator.get_credentials()
    assert credential.backup_eligible is True and credential.backup_state is True


def test_a_user_who_fails_verification_registers_nothing(authenticator, page, rp):
    authenticator.set_user_verified(False)
    page.goto(rp.url())
    name = new_name("unverified")
    outcome = register(page, name)
    assert outcome["error"]["name"] == "NotAllowedError", outcome
    assert authenticator.get_credentials() == []
    authenticator.set_user_verified(True)
    assert_registered(register(page, name), rp, name, ALGORITHMS["ES256"])


@pytest.mark.virtual_authenticator(has_user_verification=False)
def test_an_authenticator_without_verification_signs_in_with_presence_only(authenticator, page, rp):
    page.goto(rp.url())
    name = new_name("presence")
    registered = register(page, name)
    assert_registered(registered, rp, name, ALGORITHMS["ES256"])
    assert registered["page"]["flags"] & (UP | UV) == UP
    outcome = sign_in(page, {"allow": [name]})
    assert_signed_in(outcome, rp, name)
    assert outcome["page"]["flags"] & (UP | UV) == UP


def test_a_removed_credential_no_longer_signs_in(authenticator, page, rp):
    account = add_known_account(rp, authenticator)
    page.goto(rp.url())
    assert_signed_in(sign_in(page, {"allow": [account.name]}), rp, account.name)
    authenticator.remove_credential(account.credential_id)
    assert authenticator.get_credentials() == []
    outcome = sign_in(page, {"allow": [account.name]})
    assert outcome["error"]["name"] == "NotAllowedError", outcome


@pytest.mark.parametrize("transport, attachment", [
    pytest.param("internal", "platform", marks=pytest.mark.virtual_authenticator(transport="internal")),
    pytest.param("usb", "cross-platform", marks=pytest.mark.virtual_authenticator(transport="usb")),
])
def test_the_transport_decides_the_attachment(authenticator, page, rp, transport, attachment):
    page.goto(rp.url())
    name = new_name(transport)
    registered = register(page, name)
    assert_registered(registered, rp, name, ALGORITHMS["ES256"])
    assert registered["page"]["attachment"] == attachment
    assert registered["page"]["transports"] == [transport]
    signed_in = sign_in(page)
    assert_signed_in(signed_in, rp, name)
    assert signed_in["page"]["attachment"] == attachment


def test_override_bits_clear_the_uv_and_up_flags(authenticator, page, rp):
    account = add_known_account(rp, authenticator)
    page.goto(rp.url())
    authenticator.set_response_override_bits(is_bad_uv=True)
    unverified = sign_in(page)
    assert_signed_in(unverified, rp, account.name)  # the site prefers UV, does not require it
    assert unverified["page"]["flags"] & (UP | UV) == UP
    authenticator.set_response_override_bits(is_bad_up=True)
    absent = sign_in(page)
    assert "error" not in absent, absent
    assert absent["page"]["flags"] & UP == 0
    assert absent["server"]["verified"] is False and "present" in absent["server"]["error"].lower(), absent
    authenticator.set_response_override_bits()
    assert_signed_in(sign_in(page), rp, account.name)


@pytest.mark.virtual_authenticator(has_resident_key=False)
def test_an_authenticator_without_resident_keys_registers_only_server_side_credentials(authenticator, page, rp):
    page.goto(rp.url())
    name = new_name("server-side")
    registered = register(page, name, resident=False)
    assert_registered(registered, rp, name, ALGORITHMS["ES256"])
    assert sign_in(page)["error"]["name"] == "NotAllowedError", "nothing to discover"
    assert_signed_in(sign_in(page, {"allow": [name]}), rp, name)
