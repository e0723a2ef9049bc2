"""python-fido2's ClientPin (pinUvAuthProtocol 1 and 2) against the real daemon (CTAP 2.1 §6.5).

Every test gets a fresh daemon with `--uv off`, so the PIN is the only way to
user verification and python-fido2's client takes the PIN path.
"""

from __future__ import annotations

import os

import pytest
from fido2.attestation import Attestation, AttestationType
from fido2.client import ClientError
from fido2.ctap import CtapError
from fido2.ctap2 import Ctap2
from fido2.ctap2.pin import ClientPin, PinProtocolV1, PinProtocolV2
from fido2.server import Fido2Server
from fido2.utils import sha256

from conftest import make_client
from passkeyd_hid import replug
from passkeyd_pin import PIN, PROTOCOL_IDS, PROTOCOLS, PinInteraction

ERR = CtapError.ERR
PERM = ClientPin.PERMISSION
ES256 = [{"type": "public-key", "alg": -7}]


@pytest.fixture
def dev(daemon_factory):
    d = daemon_factory("--presence", "auto", "--uv", "off")
    device = d.device()
    yield device
    device.close()


@pytest.fixture(params=PROTOCOLS, ids=PROTOCOL_IDS)
def protocol(request):
    return request.param


def ctap_error(code: ERR):
    return pytest.raises(CtapError, match=code.name)


def raw_make_credential(ctap: Ctap2, protocol, token: bytes, rp_id: str, *, rk: bool = True):
    """makeCredential authenticated with `token` by hand (CTAP 2.1 §6.1.2 step 11: pinUvAuthParam over clientDataHash)."""
    cdh = os.urandom(32)
    return cdh, ctap.make_credential(
        cdh,
        {"id": rp_id, "name": rp_id},
        {"id": os.urandom(16), "name": "pin-user", "displayName": "Pin User"},
        ES256,
        options={"rk": rk},
        pin_uv_param=protocol.authenticate(token, cdh),
        pin_uv_protocol=protocol.VERSION,
    )


def raw_get_assertion(ctap: Ctap2, protocol, token: bytes, rp_id: str, allow: list | None = None):
    cdh = os.urandom(32)
    return cdh, ctap.get_assertion(
        rp_id, cdh, allow, pin_uv_param=protocol.authenticate(token, cdh), pin_uv_protocol=protocol.VERSION
    )


def test_no_pin_yet(dev, protocol):
    ctap = Ctap2(dev)
    assert ctap.info.options["clientPin"] is False
    pin = ClientPin(ctap, protocol())
    # CTAP 2.1 §6.5.5.2: with no PIN there are no retries to report.
    with ctap_error(ERR.PIN_NOT_SET):
        pin.get_pin_retries()
    with ctap_error(ERR.PIN_NOT_SET):
        pin.get_pin_token(PIN, PERM.MAKE_CREDENTIAL, "example.com")
    with ctap_error(ERR.PIN_NOT_SET):
        pin.change_pin(PIN, "9999")


def test_set_and_change_pin(dev, protocol):
    ctap = Ctap2(dev)
    pin = ClientPin(ctap, protocol())
    pin.set_pin(PIN)
    assert ctap.get_info().options["clientPin"] is True
    assert pin.get_pin_retries()[0] == 8
    assert pin.get_pin_token(PIN, PERM.GET_ASSERTION, "example.com")

    pin.change_pin(PIN, "73915")
    with ctap_error(ERR.PIN_INVALID):
        pin.get_pin_token(PIN, PERM.GET_ASSERTION, "example.com")
    assert pin.get_pin_retries()[0] == 7
    assert pin.get_pin_token("73915", PERM.GET_ASSERTION, "example.com")
    assert pin.get_pin_retries()[0] == 8  # a correct PIN restores the counter

    # changePIN with the wrong current PIN changes nothing and costs a retry.
    with ctap_error(ERR.PIN_INVALID):
        pin.change_pin(PIN, "55555")
    assert pin.get_pin_retries()[0] == 7
    assert pin.get_pin_token("73915", PERM.GET_ASSERTION, "example.com")

    # The other protocol sees the same PIN: it lives in the authenticator, not the session.
    other = ClientPin(ctap, (PinProtocolV2 if protocol is PinProtocolV1 else PinProtocolV1)())
    assert other.get_pin_token("73915", PERM.GET_ASSERTION, "example.com")


def test_set_pin_twice_is_pin_auth_invalid(dev, protocol):
    pin = ClientPin(Ctap2(dev), protocol())
    pin.set_pin(PIN)
    with ctap_error(ERR.PIN_AUTH_INVALID):
        pin.set_pin("1111")


def test_set_pin_twice_keeps_the_first(dev, protocol):
    pin = ClientPin(Ctap2(dev), protocol())
    pin.set_pin(PIN)
    with pytest.raises(CtapError):
        pin.set_pin("1111")
    assert pin.get_pin_token(PIN, PERM.GET_ASSERTION, "example.com")
    with ctap_error(ERR.PIN_INVALID):
        pin.get_pin_token("1111", PERM.GET_ASSERTION, "example.com")


def test_tokens_carry_their_permissions(dev, protocol):
    ctap = Ctap2(dev)
    proto = protocol()
    pin = ClientPin(ctap, proto)
    pin.set_pin(PIN)

    # mc bound to one RP: registers there, with UV (§6.1.2 step 11), and nowhere else.
    token = pin.get_pin_token(PIN, PERM.MAKE_CREDENTIAL, "pin.example.org")
    cdh, att = raw_make_credential(ctap, proto, token, "pin.example.org")
    assert att.auth_data.is_user_verified()
    assert att.auth_data.rp_id_hash == sha256(b"pin.example.org")
    cred = att.auth_data.credential_data
    # The packed self-attestation signs authData || clientDataHash.
    verdict = Attestation.for_type(att.fmt)().verify(att.att_stmt, att.auth_data, cdh)
    assert verdict.attestation_type in (AttestationType.SELF, AttestationType.NONE)

    token = pin.get_pin_token(PIN, PERM.MAKE_CREDENTIAL, "pin.example.org")
    with ctap_error(ERR.PIN_AUTH_INVALID):
        raw_make_credential(ctap, proto, token, "other.example.org")

    # ga token: asserts with UV and a signature over authData || clientDataHash.
    token = pin.get_pin_token(PIN, PERM.GET_ASSERTION, "pin.example.org")
    cdh, assertion = raw_get_assertion(ctap, proto, token, "pin.example.org")
    assert assertion.credential["id"] == cred.credential_id
    assert assertion.auth_data.is_user_verified()
    assertion.verify(cdh, cred.public_key)

    # A token without mc cannot register; one without ga cannot assert.
    token = pin.get_pin_token(PIN, PERM.GET_ASSERTION, "pin.example.org")
    with ctap_error(ERR.PIN_AUTH_INVALID):
        raw_make_credential(ctap, proto, token, "pin.example.org")
    token = pin.get_pin_token(PIN, PERM.CREDENTIAL_MGMT)
    with ctap_error(ERR.PIN_AUTH_INVALID):
        raw_get_assertion(ctap, proto, token, "pin.example.org")

    # A pinUvAuthParam made with a key the authenticator never issued.
    with ctap_error(ERR.PIN_AUTH_INVALID):
        raw_get_assertion(ctap, proto, os.urandom(32), "pin.example.org")

    # getPinToken (0x05, CTAP 2.0) yields mc and ga with no RP bound (§6.5.5.7.1).
    legacy = pin.get_pin_token(PIN)
    cdh, att = raw_make_credential(ctap, proto, legacy, "legacy.example.org", rk=False)
    assert att.auth_data.is_user_verified()


def test_fido2_client_uses_the_pin(dev, protocol, monkeypatch):
    # A client that speaks only this protocol (python-fido2 picks from ClientPin.PROTOCOLS).
    monkeypatch.setattr(ClientPin, "PROTOCOLS", [protocol])
    ClientPin(Ctap2(dev), protocol()).set_pin(PIN)
    rp_id = f"client{protocol.VERSION}.example.net"
    server = Fido2Server({"id": rp_id, "name": "PIN RP"})
    user = {"id": os.urandom(16), "name": "pat@example.net", "displayName": "Pat"}
    interaction = PinInteraction()
    client = make_client(dev, f"https://{rp_id}", interaction)

    options, state = server.register_begin(user, resident_key_requirement="required", user_verification="required")
    result = client.make_credential(options.public_key)
    auth_data = server.register_complete(state, result)
    assert auth_data.is_user_verified()
    assert interaction.pin_requests and interaction.pin_requests[0][0] & PERM.MAKE_CREDENTIAL

    request, state = server.authenticate_begin(user_verification="required")
    assertion = client.get_assertion(request.public_key).get_response(0)
    assert server.authenticate_complete(state, [auth_data.credential_data], assertion) == auth_data.credential_data
    assert assertion.response.user_handle == user["id"]
    assert len(interaction.pin_requests) == 2

    # A user who gives a wrong PIN: the client reports the authenticator's PIN_INVALID.
    client = make_client(dev, f"https://{rp_id}", PinInteraction("0000"))
    request, state = server.authenticate_begin(user_verification="required")
    with pytest.raises(ClientError) as e:
        client.get_assertion(request.public_key)
    assert isinstance(e.value.cause, CtapError) and e.value.cause.code == ERR.PIN_INVALID
    assert ClientPin(Ctap2(dev), protocol()).get_pin_retries()[0] == 7


def test_wrong_pins_block_until_replug_then_for_good(dev, protocol):
    ctap = Ctap2(dev)
    pin = ClientPin(ctap, protocol())
    pin.set_pin(PIN)
    assert pin.get_pin_retries()[0] == 8

    def attempt(p: str):
        return pin.get_pin_token(p, PERM.GET_ASSERTION, "example.com")

    # §6.5.5.7.2: each wrong PIN costs one retry; the third in a row in one power cycle answers PIN_AUTH_BLOCKED.
    expected = 8
    for cycle in range(2):
        for n in range(3):
            with ctap_error(ERR.PIN_AUTH_BLOCKED if n == 2 else ERR.PIN_INVALID):
                attempt("0000")
            expected -= 1
            assert pin.get_pin_retries()[0] == expected
        # Blocked for this power cycle: even the right PIN is refused and costs nothing.
        with ctap_error(ERR.PIN_AUTH_BLOCKED):
            attempt(PIN)
        with ctap_error(ERR.PIN_AUTH_BLOCKED):
            pin.change_pin(PIN, "9999")
        assert pin.get_pin_retries()[0] == expected
        replug(dev)

    assert expected == 2
    # After the replug the right PIN works again and restores all 8 retries.
    assert attempt(PIN)
    assert pin.get_pin_retries()[0] == 8

    # Eight wrong PINs in all block the PIN for good (§6.5.5.7.2 step 6: at 0 retries, PIN_BLOCKED).
    for codes in ([ERR.PIN_INVALID, ERR.PIN_INVALID, ERR.PIN_AUTH_BLOCKED],
                  [ERR.PIN_INVALID, ERR.PIN_INVALID, ERR.PIN_AUTH_BLOCKED],
                  [ERR.PIN_INVALID, ERR.PIN_BLOCKED]):
        for code in codes:
            with ctap_error(code):
                attempt("0000")
        replug(dev)
    assert pin.get_pin_retries()[0] == 0
    with ctap_error(ERR.PIN_BLOCKED):
        attempt(PIN)
    replug(dev)
    with ctap_error(ERR.PIN_BLOCKED):
        attempt(PIN)

    # Only a reset (within 10 s of power-up, CTAP 2.1 §6.6) recovers: no PIN afterwards.
    replug(dev)
    ctap.reset()
    assert ctap.get_info().options["clientPin"] is False
    with ctap_error(ERR.PIN_NOT_SET):
        pin.get_pin_retries()
    pin.set_pin(PIN)
    assert attempt(PIN)
