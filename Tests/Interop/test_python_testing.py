"""passkeyd.testing.VirtualAuthenticator (integrations/python) on the real daemon, judged by
real relying parties: python-fido2 as the client, py_webauthn and Fido2Server as the RP.
Chrome's virtual-authenticator vocabulary: registered and imported credentials sign in (every
algorithm, resident and not, long IDs), counters, backup flags, events, response override
bits, user verification and presence at run time, transports and profiles, and bad input
refused with nothing stored."""

from __future__ import annotations

import hashlib
import json
import os
import threading
import time

import pytest
import webauthn
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed25519, padding, rsa
from fido2 import cbor
from fido2.client import ClientError
from fido2.cose import ES256, ES384, ES512, EdDSA
from fido2.ctap2 import Ctap2
from fido2.server import Fido2Server
from fido2.utils import websafe_decode
from fido2.webauthn import (
    PublicKeyCredentialDescriptor,
    PublicKeyCredentialRequestOptions,
    PublicKeyCredentialType,
)
from webauthn.helpers.exceptions import InvalidAuthenticationResponse

from conftest import make_client
from passkeyd_hid import Daemon

import passkeyd
from passkeyd import testing
from passkeyd.testing import VirtualAuthenticator

DER = serialization.Encoding.DER
PKCS8 = serialization.PrivateFormat.PKCS8
NONE = serialization.NoEncryption()


def pkcs8(key) -> bytes:
    return key.private_bytes(DER, PKCS8, NONE)


@pytest.fixture(scope="module")
def authenticator():
    with VirtualAuthenticator() as va:
        yield va


@pytest.fixture
def device(authenticator):
    dev = authenticator.device()
    yield dev
    dev.close()


def sign_in(device, rp_id: str, allow: list[bytes] | None, *, uv: str = "discouraged"):
    """One python-fido2 getAssertion for `rp_id` (discovery when `allow` is None): the response."""
    client = make_client(device, f"https://{rp_id}")
    options = PublicKeyCredentialRequestOptions(
        challenge=os.urandom(32), rp_id=rp_id, user_verification=uv,
        allow_credentials=None if allow is None else [
            PublicKeyCredentialDescriptor(type=PublicKeyCredentialType.PUBLIC_KEY, id=i) for i in allow])
    return client.get_assertion(options).get_response(0), options.challenge


def cose_key(public_key):
    """The COSE form of a P-256/384/521 or Ed25519 public key, as an RP stores it."""
    if isinstance(public_key, ed25519.Ed25519PublicKey):
        return EdDSA.from_cryptography_key(public_key)
    return {"secp256r1": ES256, "secp384r1": ES384, "secp521r1": ES512}[public_key.curve.name].from_cryptography_key(
        public_key)


def webauthn_verify(response, challenge: bytes, rp_id: str, public_key, sign_count: int = 0, require_uv=False):
    """py_webauthn's verdict on an assertion, as an RP holding `public_key` would give it."""
    return webauthn.verify_authentication_response(
        credential=json.dumps(dict(response)), expected_challenge=challenge, expected_rp_id=rp_id,
        expected_origin=f"https://{rp_id}", credential_public_key=cbor.encode(dict(cose_key(public_key))), credential_current_sign_count=sign_count, require_user_verification=require_uv)


def signed_bytes(response) -> bytes:
    return bytes(response.response.authenticator_data) + hashlib.sha256(bytes(response.response.client_data)).digest()


# -- registered and imported credentials sign in -----------------------------------------------


def test_a_registered_passkey_is_listed_with_its_key_and_its_events_arrive(authenticator, device):
    rp_id = "registered.testing.example"
    seen = []
    authenticator.on("credential_added", seen.append)
    server = Fido2Server({"id": rp_id, "name": "registered"})
    client = make_client(device, f"https://{rp_id}")
    options, state = server.register_begin({"id": b"user-1", "name": "ada", "displayName": "Ada"},
                                           resident_key_requirement="required", user_verification="required")
    made = server.register_complete(state, client.make_credential(options.public_key))
    credential_id = made.credential_data.credential_id

    added = authenticator.wait_for_event("credential_added", where=lambda e: e.credential_id == credential_id)
    assert added.rp_id == rp_id and added.user_name == "ada"
    deadline = time.monotonic() + 10
    while not any(e.credential_id == credential_id for e in seen) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert any(e.credential_id == credential_id for e in seen), "the on() callback ran"

    stored = authenticator.get_credential(credential_id)
    assert (stored.rp_id, stored.user_handle, stored.user_name, stored.is_resident_credential) == (
        rp_id, b"user-1", "ada", True)
    assert stored.algorithm == -7 and stored.algorithm_name == "ES256"
    # The private key it returns is the one that signs: a signature made with it verifies.
    key = serialization.load_der_private_key(stored.private_key, None)
    assert cose_key(key.public_key()) == made.credential_data.public_key

    response, challenge = sign_in(device, rp_id, None, uv="required")
    verified = webauthn_verify(response, challenge, rp_id, key.public_key(), require_uv=True)
    asserted = authenticator.wait_for_event("credential_asserted", where=lambda e: e.credential_id == credential_id)
    assert asserted.sign_count == verified.new_sign_count > 0


def test_an_imported_resident_p256_key_signs_in_by_discovery_with_its_counter_and_backup_flags(authenticator, device):
    rp_id = "imported.testing.example"
    key = ec.generate_private_key(ec.SECP256R1())
    credential_id = os.urandom(48)
    added = authenticator.add_credential(credential_id, rp_id, b"user-imported", pkcs8(key), sign_count=41,
                                         backup_eligible=True, backup_state=True, user_name="grace")
    assert (added.sign_count, added.backup_eligible, added.backup_state, added.user_name) == (41, True, True, "grace")
    event = authenticator.wait_for_event("credential_added", where=lambda e: e.credential_id == credential_id)
    assert event.rp_id == rp_id

    response, challenge = sign_in(device, rp_id, None)
    assert bytes(response.raw_id) == credential_id
    assert bytes(response.response.user_handle) == b"user-imported"
    verified = webauthn_verify(response, challenge, rp_id, key.public_key(), sign_count=41)
    assert verified.new_sign_count == 42
    assert verified.credential_backed_up is True and verified.credential_device_type == "multi_device"
    assert authenticator.get_credential(credential_id).sign_count == 42


def test_a_non_resident_credential_with_a_1023_byte_id_answers_its_allow_list_and_is_never_discovered(
        authenticator, device):
    rp_id = "nonresident.testing.example"
    key = ed25519.Ed25519PrivateKey.generate()
    credential_id = os.urandom(testing.MAX_CREDENTIAL_ID_LENGTH)
    authenticator.add_credential(credential_id, rp_id, None, pkcs8(key), is_resident_credential=False)

    stored = authenticator.get_credential(credential_id)
    assert stored.is_resident_credential is False and stored.algorithm_name == "EdDSA"
    with pytest.raises(ClientError):  # discovery finds nothing for this RP: it holds only that one
        sign_in(device, rp_id, None)
    response, challenge = sign_in(device, rp_id, [os.urandom(32), credential_id])
    assert bytes(response.raw_id) == credential_id
    # A counter of its own (python-fido2's silent probe of the allow list counted one too).
    assert webauthn_verify(response, challenge, rp_id, key.public_key()).new_sign_count == 2
    assert authenticator.get_credential(credential_id).sign_count == 2
    # Credential management's discoverable credentials do not count it either.
    info = Ctap2(device).get_info()
    before = info.remaining_disc_creds
    authenticator.add_credential(os.urandom(16), rp_id, None, pkcs8(key), is_resident_credential=False)
    assert Ctap2(device).get_info().remaining_disc_creds == before


ALGORITHMS = {
    "ES256": lambda: ec.generate_private_key(ec.SECP256R1()),
    "ES384": lambda: ec.generate_private_key(ec.SECP384R1()),
    "ES512": lambda: ec.generate_private_key(ec.SECP521R1()),
    "ES256K": lambda: ec.generate_private_key(ec.SECP256K1()),
    "EdDSA": ed25519.Ed25519PrivateKey.generate,
    "RS256": lambda: rsa.generate_private_key(65537, 2048),
    "PS256": lambda: rsa.generate_private_key(65537, 2048),
}


def same_key(a, b) -> bool:
    if isinstance(a, ed25519.Ed25519PrivateKey):
        return a.private_bytes_raw() == b.private_bytes_raw()
    if isinstance(a, rsa.RSAPrivateKey):  # the primes are recovered, maybe in the other order
        return (a.private_numbers().d, a.public_key().public_numbers()) == (
            b.private_numbers().d, b.public_key().public_numbers())
    return a.private_numbers() == b.private_numbers()


def verify_with(key, name: str, signature: bytes, data: bytes) -> None:
    public = key.public_key()
    if name == "EdDSA":
        public.verify(signature, data)
    elif name == "RS256":
        public.verify(signature, data, padding.PKCS1v15(), hashes.SHA256())
    elif name == "PS256":
        public.verify(signature, data, padding.PSS(padding.MGF1(hashes.SHA256()), 32), hashes.SHA256())
    else:
        digest = {"ES256": hashes.SHA256(), "ES256K": hashes.SHA256(), "ES384": hashes.SHA384(),
                  "ES512": hashes.SHA512()}[name]
        public.verify(signature, data, ec.ECDSA(digest))


@pytest.mark.parametrize("name", sorted(ALGORITHMS))
@pytest.mark.parametrize("resident", [True, False], ids=["resident", "non-resident"])
def test_every_algorithm_passkeyd_signs_with_imports_from_pkcs8_signs_and_exports_the_same_key(
        authenticator, device, name, resident):
    rp_id = f"{name.lower()}.alg.testing.example"
    key = ALGORITHMS[name]()
    credential_id = os.urandom(32)
    authenticator.add_credential(credential_id, rp_id, os.urandom(16), pkcs8(key), is_resident_credential=resident,
                                 algorithm=name if name.startswith(("RS", "PS")) else None)
    response, _ = sign_in(device, rp_id, [credential_id])
    verify_with(key, name, bytes(response.response.signature), signed_bytes(response))

    exported = serialization.load_der_private_key(authenticator.get_credential(credential_id).private_key, None)
    assert same_key(exported, key)
    assert authenticator.get_credential(credential_id).algorithm_name == name


def test_an_ml_dsa_seed_key_imports_and_exports_as_the_same_pkcs8(authenticator):
    seed = os.urandom(32)
    der = testing._MLDSA[-48] + seed
    credential_id = os.urandom(20)
    authenticator.add_credential(credential_id, "mldsa.testing.example", b"u", der)
    stored = authenticator.get_credential(credential_id)
    assert stored.algorithm_name == "ML-DSA-44" and stored.private_key == der


# -- run-time controls -----------------------------------------------------------------------


@pytest.fixture
def account(authenticator):
    """A fresh RP with one imported ES256 passkey: (rp_id, credential_id, key)."""
    rp_id = f"acct{os.urandom(4).hex()}.testing.example"
    key = ec.generate_private_key(ec.SECP256R1())
    credential_id = os.urandom(32)
    authenticator.add_credential(credential_id, rp_id, os.urandom(8), pkcs8(key))
    return rp_id, credential_id, key


@pytest.mark.parametrize("bits,require_uv,refusal", [
    ({"is_bogus_signature": True}, False, "signature"),
    ({"is_bad_uv": True}, True, "verif"),
    ({"is_bad_up": True}, False, "not present"),
])
def test_response_override_bits_hold_for_every_response_until_changed(authenticator, device, account, bits,
                                                                      require_uv, refusal):
    rp_id, credential_id, key = account
    authenticator.set_response_override_bits(**bits)
    try:
        for _ in range(2):  # persisting, as Chrome's: not a one-shot fault
            response, challenge = sign_in(device, rp_id, [credential_id], uv="required" if require_uv else "discouraged")
            with pytest.raises(InvalidAuthenticationResponse) as refused:
                webauthn_verify(response, challenge, rp_id, key.public_key(), require_uv=require_uv)
            assert refusal in str(refused.value).lower()
        assert authenticator.controls()["responseOverrides"] == {
            "bogusSignature": bits.get("is_bogus_signature", False), "badUV": bits.get("is_bad_uv", False),
            "badUP": bits.get("is_bad_up", False)}
    finally:
        authenticator.set_response_override_bits()
    response, challenge = sign_in(device, rp_id, [credential_id], uv="required" if require_uv else "discouraged")
    webauthn_verify(response, challenge, rp_id, key.public_key(), require_uv=require_uv, sign_count=2)
    assert authenticator.events("fault_fired") == [], "override bits are settings, not fired faults"


def test_set_user_verified_false_fails_uv_and_true_verifies_again(authenticator, device, account):
    rp_id, credential_id, key = account
    authenticator.set_user_verified(False)
    try:
        with pytest.raises(ClientError):
            sign_in(device, rp_id, [credential_id], uv="required")
        assert authenticator.controls()["userVerified"] is False
    finally:
        authenticator.set_user_verified(True)
    response, challenge = sign_in(device, rp_id, [credential_id], uv="required")
    assert webauthn_verify(response, challenge, rp_id, key.public_key(), require_uv=True).user_verified


def test_without_automatic_presence_a_sign_in_waits_for_approve(authenticator, account):
    rp_id, credential_id, key = account
    authenticator.set_automatic_presence_simulation(False)
    outcome = {}

    def attempt():
        dev = authenticator.device()
        try:
            outcome["response"] = sign_in(dev, rp_id, [credential_id])
        except Exception as error:  # noqa: BLE001 - reported below
            outcome["error"] = error
        finally:
            dev.close()

    thread = threading.Thread(target=attempt)
    try:
        thread.start()
        deadline = time.monotonic() + 20
        while authenticator.status()["pending"] != "presence":
            assert time.monotonic() < deadline, "the sign-in never waited for presence"
            assert thread.is_alive(), outcome
            time.sleep(0.05)
        assert authenticator.approve()
        thread.join(30)
    finally:
        authenticator.set_automatic_presence_simulation(True)
    assert "error" not in outcome, outcome.get("error")
    response, challenge = outcome["response"]
    webauthn_verify(response, challenge, rp_id, key.public_key())


def test_set_credential_properties_changes_the_counter_and_backup_flags_the_rp_sees(authenticator, device, account):
    rp_id, credential_id, key = account
    updated = authenticator.set_credential_properties(credential_id, backup_eligible=True, backup_state=True,
                                                      sign_count=100)
    assert (updated.sign_count, updated.backup_eligible, updated.backup_state) == (100, True, True)
    authenticator.wait_for_event("credential_updated", where=lambda e: e.credential_id == credential_id)
    # By discovery: python-fido2 probes an allow list with a silent assertion first, which counts too.
    response, challenge = sign_in(device, rp_id, None)
    verified = webauthn_verify(response, challenge, rp_id, key.public_key(), sign_count=100)
    assert verified.new_sign_count == 101 and verified.credential_backed_up
    authenticator.set_credential_properties(credential_id, backup_state=False, sign_count=5)
    response, challenge = sign_in(device, rp_id, None)
    verified = webauthn_verify(response, challenge, rp_id, key.public_key())
    assert verified.new_sign_count == 6 and not verified.credential_backed_up
    with pytest.raises(testing.InvalidCredential, match="backup_eligible"):
        authenticator.set_credential_properties(credential_id, backup_eligible=False, backup_state=True)


def test_remove_credential_and_remove_all_forget_resident_and_non_resident_ones():
    with VirtualAuthenticator() as va:
        key = pkcs8(ec.generate_private_key(ec.SECP256R1()))
        ids = [os.urandom(16) for _ in range(3)]
        va.add_credential(ids[0], "remove.example", b"u0", key)
        va.add_credential(ids[1], "remove.example", b"u1", key)
        va.add_credential(ids[2], "remove.example", None, key, is_resident_credential=False)
        va.remove_credential(ids[0])
        assert va.wait_for_event("credential_deleted").credential_id == ids[0]
        assert sorted(c.credential_id for c in va.get_credentials()) == sorted(ids[1:])
        with pytest.raises(testing.CredentialNotFound):
            va.remove_credential(ids[0])
        va.remove_all_credentials()
        assert va.get_credentials() == []
        dev = va.device()
        try:
            with pytest.raises(ClientError):
                sign_in(dev, "remove.example", [ids[2]])
        finally:
            dev.close()


# -- what the options make of the device -------------------------------------------------------


@pytest.mark.parametrize("transport,plat", [("internal", True), ("usb", False), ("nfc", False)])
def test_transport_is_what_get_info_reports(transport, plat):
    with VirtualAuthenticator(transport=transport) as va:
        dev = va.device()
        try:
            info = Ctap2(dev).get_info()
        finally:
            dev.close()
    assert info.transports == [transport]
    assert info.options["plat"] is plat


@pytest.mark.parametrize("version,newest", [("ctap2_0", "FIDO_2_0"), ("ctap2_1", "FIDO_2_1"), ("ctap2_2", "FIDO_2_2")])
def test_ctap2_version_chooses_the_profile(version, newest):
    with VirtualAuthenticator(ctap2_version=version) as va:
        dev = va.device()
        try:
            assert Ctap2(dev).get_info().versions[-1] == newest
        finally:
            dev.close()


def test_u2f_protocol_is_a_u2f_only_key():
    with VirtualAuthenticator(protocol="u2f") as va:
        assert va.status()["profile"] == "u2f"
        dev = va.device()
        try:
            from fido2.hid import CAPABILITY
            assert not dev.capabilities & CAPABILITY.CBOR
        finally:
            dev.close()
        # U2F has no resident credentials, and signs with ES256 alone.
        with pytest.raises(testing.UnsupportedOption, match="u2f"):
            va.add_credential(b"id", "u2f.example", b"u", pkcs8(ec.generate_private_key(ec.SECP256R1())))
        with pytest.raises(testing.UnsupportedKey, match="ES256"):
            va.add_credential(b"id", "u2f.example", None, pkcs8(ed25519.Ed25519PrivateKey.generate()),
                              is_resident_credential=False)
        assert va.get_credentials() == []


@pytest.mark.parametrize("protocol", ["u2f", "ctap2"])
def test_u2f_registrations_are_listed_and_removed_as_chrome_lists_them(protocol):
    """Chrome's virtual authenticator lists what U2F_REGISTER made, with no RP ID and no user
    handle (U2F gives the key the RP ID's hash alone), and removing one stops it signing; a
    non-resident import signs through U2F_AUTHENTICATE. Both, on a U2F-only key and on a CTAP2 key
    a U2F host registered on (where CTAP2 getAssertion for that RP finds it too)."""
    from fido2.ctap1 import ApduError, Ctap1

    application = hashlib.sha256(b"u2f.example").digest()
    with VirtualAuthenticator(protocol=protocol) as va:
        dev = va.device()
        try:
            u2f = Ctap1(dev)
            challenge = os.urandom(32)
            registration = u2f.register(challenge, application)
            registration.verify(application, challenge)
            [listed] = va.get_credentials()
            assert (listed.credential_id, listed.rp_id, listed.user_handle, listed.is_resident_credential,
                    listed.algorithm) == (registration.key_handle, None, None, False, -7)
            assert [c.credential_id for c in va.get_credentials("u2f.example")] == [registration.key_handle]
            assert va.get_credentials("other.example") == []
            signed = u2f.authenticate(os.urandom(32), application, registration.key_handle)
            assert signed.counter == va.get_credential(registration.key_handle).sign_count == 1
            # Chrome's credentialAdded and credentialAsserted, with no RP (U2F names none).
            added = va.wait_for_event("credential_added")
            asserted = va.wait_for_event("credential_asserted")
            assert (added.credential_id, added.rp_id) == (registration.key_handle, None)
            assert (asserted.credential_id, asserted.sign_count) == (registration.key_handle, 1)
            if protocol == "ctap2":
                assertion = Ctap2(dev).get_assertion(
                    "u2f.example", os.urandom(32), [{"type": "public-key", "id": registration.key_handle}])
                assert assertion.auth_data.counter == 2
            va.remove_credential(registration.key_handle)
            with pytest.raises(ApduError) as refused:
                u2f.authenticate(os.urandom(32), application, registration.key_handle)
            assert refused.value.code == 0x6A80  # SW_WRONG_DATA: not a key handle of this key
            assert va.get_credentials() == []

            key = ec.generate_private_key(ec.SECP256R1())
            added = va.add_credential(b"chosen-handle", "u2f.example", None, pkcs8(key), is_resident_credential=False)
            assert (added.rp_id, added.is_resident_credential) == ("u2f.example", False)
            challenge = os.urandom(32)
            signed = u2f.authenticate(challenge, application, b"chosen-handle")
            signed.verify(application, challenge, key.public_key().public_bytes(
                serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint))
        finally:
            dev.close()


def test_extensions_can_be_taken_away_and_uv_turned_off():
    with VirtualAuthenticator(has_large_blob=False, has_prf=False, has_user_verification=False) as va:
        dev = va.device()
        try:
            info = Ctap2(dev).get_info()
        finally:
            dev.close()
    assert "largeBlobKey" not in info.extensions and "hmac-secret" not in info.extensions
    assert "credBlob" in info.extensions and "uv" not in info.options


def test_a_restart_forgets_run_time_controls_and_non_resident_credentials_but_keeps_resident_ones(tmp_path):
    data = str(tmp_path / "data")
    key = pkcs8(ec.generate_private_key(ec.SECP256R1()))
    with VirtualAuthenticator(data_dir=data) as va:
        va.add_credential(b"resident-1", "restart.example", b"u", key)
        va.add_credential(b"ephemeral-1", "restart.example", None, key, is_resident_credential=False)
        va.set_response_override_bits(is_bogus_signature=True)
        va.set_user_verified(False)
        va.answer_next_conditional_request(b"resident-1")
    with VirtualAuthenticator(data_dir=data) as va:
        assert [c.credential_id for c in va.get_credentials()] == [b"resident-1"]
        controls = va.controls()
        assert controls["responseOverrides"] == {"bogusSignature": False, "badUV": False, "badUP": False}
        assert "userVerified" not in controls and "conditional" not in controls


def test_the_next_conditional_answer_is_handed_out_once_and_only_for_its_rp(authenticator, account):
    rp_id, credential_id, _ = account
    assert "conditional" not in authenticator.controls(), "off by default"
    authenticator.answer_next_conditional_request(credential_id)
    assert authenticator.controls()["conditional"] == {"credentialId": credential_id, "rpId": rp_id}
    # What the browser host asks when a conditional request arrives (CONTROLS takeConditional).
    other = authenticator._controls({"op": "takeConditional", "rpId": "other.example"})
    assert "conditional" not in other
    taken = authenticator._controls({"op": "takeConditional", "rpId": rp_id})
    assert taken["conditional"] == {"credentialId": credential_id, "rpId": rp_id}
    assert "conditional" not in authenticator._controls({"op": "takeConditional", "rpId": rp_id})


def test_connect_attaches_to_a_running_daemon_and_uses_a_uv_token_where_controls_are_not_open(tmp_path):
    daemon = Daemon("--presence", "auto", "--uv", "auto").start()
    try:
        va = VirtualAuthenticator.connect(daemon.socket)
        try:
            key = pkcs8(ec.generate_private_key(ec.SECP256R1()))
            va.add_credential(b"connected-1", "connect.example", b"u", key)
            stored = va.get_credential(b"connected-1")
            assert stored.rp_id == "connect.example"
            assert stored.private_key is None, "that daemon keeps private keys in (no --allow-private-key-export)"
        finally:
            va.close()
        assert daemon.alive(), "close() leaves a daemon it did not start running"
        # Without --open-test-controls a request carrying no token is still refused.
        dev = daemon.device()
        try:
            reply = dev.call(0x10, bytes([0xB4]) + cbor.encode({1: {1: b"connected-1"}}))
            assert reply[0] == 0x36  # CTAP2_ERR_PUAT_REQUIRED
        finally:
            dev.close()
    finally:
        assert daemon.stop() == 0
        daemon.remove()


# -- bad input: a clear exception, and nothing stored changes -----------------------------------


def bad_inputs():
    p256 = pkcs8(ec.generate_private_key(ec.SECP256R1()))
    return {
        "unsupported curve": (dict(private_key=pkcs8(ec.generate_private_key(ec.SECP224R1()))),
                              testing.UnsupportedKey, "secp224r1"),
        "rsa-1024": (dict(private_key=pkcs8(rsa.generate_private_key(65537, 1024))), testing.UnsupportedKey,
                     "1024-bit"),
        "not a key": (dict(private_key=b"\x30\x03\x02\x01\x00"), testing.UnsupportedKey, "PKCS#8"),
        "id over 1023 bytes": (dict(credential_id=os.urandom(1024), private_key=p256), testing.InvalidCredential,
                               "1024 bytes"),
        "rp id with a scheme": (dict(rp_id="https://example.com", private_key=p256), testing.InvalidRpId,
                                "not a domain"),
        "rp id an ip address": (dict(rp_id="192.0.2.1", private_key=p256), testing.InvalidRpId, "IP address"),
        "rp id with a space": (dict(rp_id="exa mple.com", private_key=p256), testing.InvalidRpId, "not a domain"),
        "duplicate id": (dict(credential_id=b"taken-id", private_key=p256), testing.DuplicateCredential,
                         "already stored"),
    }


@pytest.mark.parametrize("case", sorted(bad_inputs()))
def test_bad_input_raises_a_clear_exception_and_stores_nothing(case):
    arguments, error, message = bad_inputs()[case]
    with VirtualAuthenticator() as va:
        key = pkcs8(ec.generate_private_key(ec.SECP256R1()))
        va.add_credential(b"taken-id", "bad.example", b"owner", key)
        before = va.get_credentials()
        call = dict(credential_id=os.urandom(16), rp_id="bad.example", user_handle=b"someone-else")
        call.update(arguments)
        with pytest.raises(error, match=message):
            va.add_credential(**call)
        assert va.get_credentials() == before


def test_a_call_after_the_daemon_died_names_what_happened():
    va = VirtualAuthenticator()
    try:
        va.daemon.kill()
        with pytest.raises(testing.AuthenticatorGone, match="is gone"):
            va.add_credential(b"x", "gone.example", b"u", pkcs8(ec.generate_private_key(ec.SECP256R1())))
        with pytest.raises(testing.AuthenticatorGone):
            va.set_user_verified(True)
        assert not va.alive
    finally:
        va.close()
    with pytest.raises(testing.AuthenticatorGone, match="closed"):
        va.get_credentials()


def test_passkeyd_fido2_is_still_the_same_module_under_its_old_name():
    import passkeyd_fido2
    assert passkeyd_fido2.open_device is passkeyd.open_device and passkeyd_fido2.Daemon is passkeyd.Daemon


def test_a_large_blob_given_to_add_credential_is_what_the_rp_reads_back(authenticator, device):
    rp_id = "blob.testing.example"
    credential_id = os.urandom(32)
    authenticator.add_credential(credential_id, rp_id, b"blob-user", pkcs8(ec.generate_private_key(ec.SECP256R1())),
                                 large_blob=b"remembered by the key")
    client = make_client(device, f"https://{rp_id}")
    options = PublicKeyCredentialRequestOptions(
        challenge=os.urandom(32), rp_id=rp_id, user_verification="required",
        allow_credentials=[PublicKeyCredentialDescriptor(type=PublicKeyCredentialType.PUBLIC_KEY, id=credential_id)],
        extensions={"largeBlob": {"read": True}})
    response = client.get_assertion(options).get_response(0)
    blob = response.client_extension_results["largeBlob"]["blob"]  # base64url, as in the JSON form
    assert websafe_decode(blob) == b"remembered by the key"
    with pytest.raises(testing.InvalidCredential, match="resident"):
        authenticator.add_credential(os.urandom(16), rp_id, None, pkcs8(ec.generate_private_key(ec.SECP256R1())),
                                     is_resident_credential=False, large_blob=b"x")


def test_passkeyctl_fault_controls_and_credential_flags_drive_the_same_controls_from_any_language(authenticator,
                                                                                                   account):
    from passkeyd_pin import passkeyctl

    rp_id, credential_id, _ = account
    done = passkeyctl(authenticator.socket, "--json", "fault", "controls", "--override", "bogus-signature,bad-up",
                      "--user-verified", "off", pin=None)
    assert done.returncode == 0, done.stderr
    try:
        shown = json.loads(done.stdout)
        assert shown["overrides"] == ["bogus-signature", "clear-up"] and shown["userVerified"] is False
        controls = authenticator.controls()
        assert controls["responseOverrides"] == {"bogusSignature": True, "badUV": False, "badUP": True}
        assert controls["userVerified"] is False
    finally:
        reset = passkeyctl(authenticator.socket, "fault", "controls", "--reset", pin=None)
        assert reset.returncode == 0, reset.stderr
    assert "userVerified" not in authenticator.controls()
    bad = passkeyctl(authenticator.socket, "fault", "controls", "--override", "sideways", pin=None)
    assert bad.returncode != 0 and "bogus-signature, bad-uv, bad-up or none" in bad.stderr
    flags = passkeyctl(authenticator.socket, "credential", "flags", "--sign-count", "77", "--",
                       testing._b64(credential_id), pin=None)
    assert flags.returncode == 0, flags.stderr
    assert authenticator.get_credential(credential_id).sign_count == 77


def test_without_resident_keys_get_info_says_so_and_only_non_resident_credentials_are_made_or_added():
    with VirtualAuthenticator(has_resident_key=False) as va:
        dev = va.device()
        try:
            assert Ctap2(dev).get_info().options["rk"] is False
            server = Fido2Server({"id": "nork.example", "name": "no rk"})
            client = make_client(dev, "https://nork.example")
            options, _ = server.register_begin({"id": b"u", "name": "u"}, resident_key_requirement="required")
            with pytest.raises(ClientError):
                client.make_credential(options.public_key)
            options, state = server.register_begin({"id": b"u", "name": "u"}, resident_key_requirement="discouraged")
            made = server.register_complete(state, client.make_credential(options.public_key)).credential_data
        finally:
            dev.close()
        key = pkcs8(ec.generate_private_key(ec.SECP256R1()))
        with pytest.raises(testing.UnsupportedOption, match="has_resident_key=False"):
            va.add_credential(b"rk", "nork.example", b"u", key)
        va.add_credential(b"not-rk", "nork.example", None, key, is_resident_credential=False)
        # The one it made and the one added, both listed (test_python_testing_nonresident.py).
        assert {c.credential_id: c.is_resident_credential for c in va.get_credentials()} == {
            made.credential_id: False, b"not-rk": False}
