"""Issue 41: passkeyd.testing.VirtualAuthenticator lists the non-resident credentials a client
registered on it, as Chrome's `WebAuthn.getCredentials` lists every credential of its virtual
authenticator. python-fido2 registers with residentKey discouraged; the listing carries the
credential's fields, its counter rises with each assertion, its properties change what the RP
sees, and removing it makes the next assertion fail as an unknown credential would. A daemon
without open test controls keeps nothing of the kind (its IDs carry their key), and the kept
ones are volatile: a restart forgets them."""

from __future__ import annotations

import hashlib

import pytest
from cryptography.hazmat.primitives import serialization
from fido2.client import ClientError
from fido2.ctap import CtapError
from fido2.ctap2 import Ctap2
from fido2.server import Fido2Server

from conftest import make_client
from passkeyd_hid import Daemon
from test_python_testing import cose_key, sign_in, webauthn_verify

from passkeyd import testing
from passkeyd.testing import VirtualAuthenticator

# A wrapped ES256 ID: version, nonce, algorithm and policy, the 32-byte key, tag.
WRAPPED_ES256_ID_LENGTH = 1 + 12 + 2 + 32 + 16


def register(device, rp_id: str, user_id: bytes, name: str, resident: str = "discouraged"):
    """python-fido2 registers a credential for `rp_id`; Fido2Server's verified credential data."""
    server = Fido2Server({"id": rp_id, "name": rp_id})
    client = make_client(device, f"https://{rp_id}")
    options, state = server.register_begin({"id": user_id, "name": name, "displayName": name.title()},
                                           resident_key_requirement=resident, user_verification="discouraged")
    return server.register_complete(state, client.make_credential(options.public_key)).credential_data


def ctap_assertion(device, rp_id: str, credential_id: bytes):
    """One getAssertion naming `credential_id` alone, straight to the device (no client's probe)."""
    return Ctap2(device).get_assertion(rp_id, hashlib.sha256(b"client data").digest(),
                                       allow_list=[{"type": "public-key", "id": credential_id}])


def test_a_non_resident_credential_python_fido2_registered_is_listed_counted_changed_and_removed():
    rp_id = "nonresident.listing.example"
    with VirtualAuthenticator() as va:
        device = va.device()
        try:
            remaining = Ctap2(device).get_info().remaining_disc_creds
            made = register(device, rp_id, b"user-nora", "nora")
            credential_id = made.credential_id
            assert va.wait_for_event("credential_added").credential_id == credential_id

            [listed] = va.get_credentials()
            assert listed.credential_id == credential_id and listed == va.get_credential(credential_id)
            assert (listed.rp_id, listed.user_handle, listed.user_name, listed.is_resident_credential) == (
                rp_id, b"user-nora", "nora", False)
            assert (listed.sign_count, listed.backup_eligible, listed.backup_state) == (0, False, False)
            assert listed.algorithm_name == "ES256"
            # The private key it lists is the one the RP registered.
            key = serialization.load_der_private_key(listed.private_key, None)
            assert cose_key(key.public_key()) == made.public_key

            # Never discoverable, never counted as a discoverable credential.
            assert Ctap2(device).get_info().remaining_disc_creds == remaining
            with pytest.raises(ClientError):
                sign_in(device, rp_id, None)

            # Each assertion raises the listed counter (python-fido2's silent probe counts one too).
            response, challenge = sign_in(device, rp_id, [credential_id])
            assert bytes(response.raw_id) == credential_id
            assert response.response.user_handle is None, "no user in a non-resident assertion, as in Chrome"
            verified = webauthn_verify(response, challenge, rp_id, key.public_key())
            assert verified.new_sign_count == 2 == va.get_credential(credential_id).sign_count
            response, challenge = sign_in(device, rp_id, [credential_id])
            verified = webauthn_verify(response, challenge, rp_id, key.public_key(), sign_count=2)
            assert verified.new_sign_count == 4 == va.get_credential(credential_id).sign_count

            # Its properties are what the RP sees next.
            changed = va.set_credential_properties(credential_id, backup_eligible=True, backup_state=True,
                                                   sign_count=50)
            assert (changed.sign_count, changed.backup_state, changed.user_handle) == (50, True, b"user-nora")
            response, challenge = sign_in(device, rp_id, [credential_id])
            verified = webauthn_verify(response, challenge, rp_id, key.public_key(), sign_count=50)
            assert verified.new_sign_count == 52 and verified.credential_backed_up is True

            # Removed, it answers as an unknown credential: CTAP2_ERR_NO_CREDENTIALS.
            ctap_assertion(device, rp_id, credential_id)
            va.remove_credential(credential_id)
            assert va.get_credentials() == []
            with pytest.raises(CtapError) as refused:
                ctap_assertion(device, rp_id, credential_id)
            assert refused.value.code == CtapError.ERR.NO_CREDENTIALS
            with pytest.raises(testing.CredentialNotFound):
                va.remove_credential(credential_id)

            # remove_all_credentials takes the made ones with the rest.
            second = register(device, rp_id, b"user-otto", "otto").credential_id
            resident = register(device, rp_id, b"user-rita", "rita", resident="required").credential_id
            assert {c.credential_id: c.is_resident_credential for c in va.get_credentials()} == {
                second: False, resident: True}
            va.remove_all_credentials()
            assert va.get_credentials() == []
            with pytest.raises(CtapError) as refused:
                ctap_assertion(device, rp_id, second)
            assert refused.value.code == CtapError.ERR.NO_CREDENTIALS
        finally:
            device.close()


def test_a_restart_forgets_the_made_non_resident_credentials(tmp_path):
    rp_id = "volatile.listing.example"
    data = str(tmp_path / "data")
    with VirtualAuthenticator(data_dir=data) as va:
        device = va.device()
        try:
            credential_id = register(device, rp_id, b"user-v", "vera").credential_id
            ctap_assertion(device, rp_id, credential_id)
        finally:
            device.close()
        assert [c.credential_id for c in va.get_credentials()] == [credential_id]
    with VirtualAuthenticator(data_dir=data) as va:
        assert va.get_credentials() == []
        device = va.device()
        try:
            with pytest.raises(CtapError) as refused:
                ctap_assertion(device, rp_id, credential_id)
            assert refused.value.code == CtapError.ERR.NO_CREDENTIALS
        finally:
            device.close()


def test_a_daemon_without_open_test_controls_lists_nothing_extra_and_its_ids_carry_their_key():
    rp_id = "closed.listing.example"
    daemon = Daemon("--presence", "auto", "--uv", "auto").start()
    try:
        device = daemon.device()
        try:
            wrapped = register(device, rp_id, b"user-w", "walt").credential_id
            resident = register(device, rp_id, b"user-r", "ruth", resident="required").credential_id
        finally:
            device.close()
        va = VirtualAuthenticator.connect(daemon.socket)  # its controls take a UV token here
        try:
            assert [c.credential_id for c in va.get_credentials()] == [resident]
            assert va.get_credential(wrapped, missing_ok=True) is None
            with pytest.raises(testing.CredentialNotFound):
                va.remove_credential(wrapped)
        finally:
            va.close()
        assert len(wrapped) == WRAPPED_ES256_ID_LENGTH, "the key sealed inside the ID, stored nowhere"
        device = daemon.device()
        try:
            ctap_assertion(device, rp_id, wrapped)
        finally:
            device.close()
    finally:
        assert daemon.stop() == 0
        daemon.remove()
