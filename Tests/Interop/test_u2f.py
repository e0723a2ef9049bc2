"""CTAP1/U2F over CTAPHID_MSG (FIDO U2F Raw Message Formats; CTAP 2.1 §10, §11.2.9.1.1),
driven by python-fido2's Ctap1 and, against `--profile u2f`, by Fido2Client's U2F fallback."""

from __future__ import annotations

import json
import os
import struct
import threading
import time
from hashlib import sha256

import pytest
import webauthn
from fido2.attestation import FidoU2FAttestation
from fido2.client import DefaultClientDataCollector, Fido2Client
from fido2.cose import ES256
from fido2.ctap import CtapError
from fido2.ctap1 import APDU, ApduError, Ctap1
from fido2.ctap2 import Ctap2
from fido2.hid import CAPABILITY, CTAPHID
from fido2.server import Fido2Server
from webauthn.helpers.structs import AttestationFormat

from conftest import ApprovingInteraction
from passkeyd_hid import presence, status

#: SW_WRONG_LENGTH (python-fido2's APDU enum names only the statuses Ctap1 itself expects).
WRONG_LENGTH = 0x6700
RP_ID = "u2f.example.net"
APP_PARAM = sha256(RP_ID.encode()).digest()


def challenge() -> bytes:
    return sha256(os.urandom(16)).digest()


@pytest.fixture
def ctap1(device) -> Ctap1:
    return Ctap1(device)


def test_init_advertises_msg_and_cbor(device):
    # CTAP 2.1 §11.2.9.1.3: NMSG clear once MSG is served; CBOR still offered by fido2.1.
    assert not device.capabilities & CAPABILITY.NMSG
    assert device.capabilities & CAPABILITY.CBOR
    assert "U2F_V2" in Ctap2(device).get_info().versions


def test_version_register_authenticate(ctap1):
    assert ctap1.get_version() == "U2F_V2"
    client_param = challenge()
    registration = ctap1.register(client_param, APP_PARAM)
    registration.verify(APP_PARAM, client_param)  # the fido-u2f attestation signature and certificate key
    assert len(registration.key_handle) <= 255

    counters = []
    for _ in range(2):
        client_param = challenge()
        signature = ctap1.authenticate(client_param, APP_PARAM, registration.key_handle)
        signature.verify(APP_PARAM, client_param, registration.public_key)
        assert signature.user_presence & 0x01
        counters.append(signature.counter)
    assert counters[1] > counters[0]


def test_check_only(ctap1):
    registration = ctap1.register(challenge(), APP_PARAM)
    # A handle of ours: "test of user presence required" (§5.1).
    with pytest.raises(ApduError) as err:
        ctap1.authenticate(challenge(), APP_PARAM, registration.key_handle, check_only=True)
    assert err.value.code == APDU.USE_NOT_SATISFIED
    # A foreign handle, and ours under another application: wrong data.
    for handle, app in [(os.urandom(64), APP_PARAM), (registration.key_handle, sha256(b"other.example").digest())]:
        with pytest.raises(ApduError) as err:
            ctap1.authenticate(challenge(), app, handle, check_only=True)
        assert err.value.code == APDU.WRONG_DATA


def test_u2f_credential_signs_through_ctap2(device, ctap1):
    registration = ctap1.register(challenge(), APP_PARAM)
    u2f_counter = ctap1.authenticate(challenge(), APP_PARAM, registration.key_handle).counter
    client_data_hash = challenge()
    assertion = Ctap2(device).get_assertion(
        RP_ID, client_data_hash, allow_list=[{"type": "public-key", "id": registration.key_handle}]
    )
    assert assertion.auth_data.rp_id_hash == APP_PARAM
    assert assertion.auth_data.counter > u2f_counter  # one counter, whichever protocol signs
    ES256.from_ctap1(registration.public_key).verify(assertion.auth_data + client_data_hash, assertion.signature)
    # And U2F after CTAP2: still forward.
    assert ctap1.authenticate(challenge(), APP_PARAM, registration.key_handle).counter > assertion.auth_data.counter


def test_non_resident_ctap2_credential_signs_through_u2f(device, ctap1):
    ctap2 = Ctap2(device)
    made = ctap2.make_credential(
        challenge(), {"id": RP_ID, "name": "U2F"}, {"id": b"u2f-user", "name": "u"},
        [{"type": "public-key", "alg": -7}], options={"rk": False},
    )
    cred = made.auth_data.credential_data
    client_param = challenge()
    signature = ctap1.authenticate(client_param, APP_PARAM, cred.credential_id)
    signature.verify(APP_PARAM, client_param, b"\x04" + cred.public_key[-2] + cred.public_key[-3])


@pytest.mark.parametrize(
    "apdu, status",
    [
        (b"\x00\x01\x00", WRONG_LENGTH),  # shorter than a header
        (b"\x80\x03\x00\x00", 0x6E00),  # CLA not supported
        (b"\x00\x40\x00\x00", 0x6D00),  # INS not supported
        (b"\x00\x01\x00\x00\x00\x00\x20" + b"\x00" * 32, WRONG_LENGTH),  # register with 32 bytes
        (b"\x00\x02\x03\x00\x00\x00\x42" + b"\x00" * 64 + b"\x05\x00", WRONG_LENGTH),  # L says 5, 1 follows
        (b"\x00\x02\x05\x00\x00\x00\x42" + b"\x00" * 64 + b"\x01\x00", APDU.WRONG_DATA),  # control byte 0x05
        (b"\x00\x03\x00\x00\x00\x00\x01\x00", WRONG_LENGTH),  # version with data
        (b"", WRONG_LENGTH),  # an empty MSG
    ],
    ids=["short", "cla", "ins", "register-len", "handle-len", "control", "version-data", "empty"],
)
def test_malformed_apdus_get_status_words(device, apdu, status):
    reply = device.call(CTAPHID.MSG, apdu)
    assert struct.unpack(">H", reply[-2:])[0] == status
    # The connection is still there and answers.
    assert Ctap1(device).get_version() == "U2F_V2"


@pytest.fixture(scope="module")
def u2f_daemon(daemon_factory):
    return daemon_factory("--profile", "u2f", "--presence", "auto", "--uv", "off")


def test_u2f_profile_offers_msg_only(u2f_daemon):
    dev = u2f_daemon.device()
    try:
        assert not dev.capabilities & CAPABILITY.CBOR
        assert not dev.capabilities & CAPABILITY.NMSG
        with pytest.raises(CtapError) as err:
            dev.call(CTAPHID.CBOR, b"\x04")
        assert err.value.code == CtapError.ERR.INVALID_COMMAND
        assert Ctap1(dev).get_version() == "U2F_V2"
    finally:
        dev.close()


def test_fido2_client_falls_back_to_u2f(u2f_daemon):
    origin = f"https://{RP_ID}"
    server = Fido2Server({"id": RP_ID, "name": "U2F"}, attestation="direct")
    dev = u2f_daemon.device()
    try:
        client = Fido2Client(dev, client_data_collector=DefaultClientDataCollector(origin),
                             user_interaction=ApprovingInteraction())
        options, state = server.register_begin(
            {"id": b"u2f-fallback", "name": "fallback"}, user_verification="discouraged", authenticator_attachment="cross-platform")
        result = client.make_credential(options.public_key)
        att = result.response.attestation_object
        assert att.fmt == "fido-u2f"
        FidoU2FAttestation().verify(att.att_stmt, att.auth_data, result.response.client_data.hash)
        auth_data = server.register_complete(state, result)
        cred = auth_data.credential_data

        verified = webauthn.verify_registration_response(
            credential=json.dumps(dict(result)), expected_challenge=options.public_key.challenge,
            expected_rp_id=RP_ID, expected_origin=origin,
        )
        assert verified.fmt == AttestationFormat.FIDO_U2F
        assert verified.credential_id == cred.credential_id

        request, state = server.authenticate_begin([cred], user_verification="discouraged")
        assertion = client.get_assertion(request.public_key).get_response(0)
        assert server.authenticate_complete(state, [cred], assertion) == cred
        webauthn.verify_authentication_response(
            credential=json.dumps(dict(assertion)), expected_challenge=request.public_key.challenge,
            expected_rp_id=RP_ID, expected_origin=origin, credential_public_key=verified.credential_public_key,
            credential_current_sign_count=verified.sign_count,
        )
    finally:
        dev.close()


def test_presence_prompt_is_waited_for_and_a_refusal_means_ask_again(daemon_factory):
    prompting = daemon_factory("--presence", "prompt", "--uv", "off")
    dev, other = prompting.device(), prompting.device()
    try:
        ctap1 = Ctap1(dev)
        client_param = challenge()
        results: list = []

        def register():
            try:
                results.append(ctap1.register(client_param, APP_PARAM))
            except ApduError as e:
                results.append(e)

        for approve in (False, True):
            worker = threading.Thread(target=register)
            worker.start()
            # The MSG transaction waits on the prompt (keepalives meanwhile) until answered.
            deadline = time.monotonic() + 10
            while status(other)["pending"] != "presence":
                assert time.monotonic() < deadline, "no presence prompt appeared"
                time.sleep(0.02)
            presence(other, approve)
            worker.join(10)
        refused, registered = results
        assert isinstance(refused, ApduError) and refused.code == APDU.USE_NOT_SATISFIED
        registered.verify(APP_PARAM, client_param)
    finally:
        dev.close()
        other.close()
