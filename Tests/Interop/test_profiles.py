"""`passkeyd --profile fido2.0 | fido2.1`: what each advertises, and every CTAP 2.0 / 2.1
difference listed in docs/profiles.md, provoked on both profiles with python-fido2."""

from __future__ import annotations

import os
from hashlib import sha256

import pytest
from fido2.ctap import CtapError
from fido2.ctap2 import Ctap2
from fido2.ctap2.pin import ClientPin, PinProtocolV1
from fido2.hid import CAPABILITY

ERR = CtapError.ERR
RP = {"id": "profiles.example.net", "name": "Profiles"}
ES256 = [{"type": "public-key", "alg": -7}]
PIN = "4826"
MAKE_CREDENTIAL, GET_ASSERTION, CLIENT_PIN = 0x01, 0x02, 0x06
CRED_MGMT, SELECTION, CRED_MGMT_PREVIEW = 0x0A, 0x0B, 0x41
BIO_ENROLLMENT, LARGE_BLOBS, CONFIG, BIO_ENROLLMENT_PREVIEW = 0x09, 0x0C, 0x0D, 0x40
# A harmless request for each command 2.1 added: getFingerprintSensorInfo, a one-byte
# large-blob read, an unknown config subcommand (INVALID_SUBCOMMAND where the command exists).
NEWER_COMMANDS = {
    CRED_MGMT: {1: 1}, CRED_MGMT_PREVIEW: {1: 1}, SELECTION: None,
    BIO_ENROLLMENT: {1: 1, 2: 7}, BIO_ENROLLMENT_PREVIEW: {1: 1, 2: 7}, LARGE_BLOBS: {1: 1, 3: 0}, CONFIG: {1: 0x7F},
}
# getInfo options that name a 2.1 (or 2.2) command or token: a 2.0 key advertises none of them.
NEWER_OPTIONS = {"bioEnroll", "largeBlobs", "authnrCfg", "perCredMgmtRO", "ep", "alwaysUv", "setMinPINLength"}


def cdh() -> bytes:
    return sha256(os.urandom(16)).digest()


def user() -> dict:
    return {"id": os.urandom(8), "name": "p"}


def status_of(call) -> int:
    """The CTAP status a call ends with (0 for success)."""
    try:
        call()
    except CtapError as e:
        return e.code
    return 0


@pytest.fixture(scope="module", params=["fido2.0", "fido2.1"])
def profile(request, daemon_factory):
    """One daemon per profile with every optional feature on (the fingerprint reader, nothing
    enrolled, so no built-in UV yet; an attestation certificate, so enterprise attestation);
    a PIN is set by the tests that need it."""
    d = daemon_factory("--profile", request.param, "--presence", "auto", "--uv", "auto", "--bio", "--attestation", "x5c")
    return request.param, d


@pytest.fixture
def ctap2(profile):
    dev = profile[1].device()
    yield Ctap2(dev)
    dev.close()


def pick(profile, fido20, fido21):
    return fido20 if profile[0] == "fido2.0" else fido21


def test_get_info_and_capabilities(profile, ctap2):
    info = ctap2.get_info()
    assert ctap2.device.capabilities & CAPABILITY.CBOR
    assert not ctap2.device.capabilities & CAPABILITY.NMSG
    assert info.versions == pick(profile, ["U2F_V2", "FIDO_2_0"], ["U2F_V2", "FIDO_2_0", "FIDO_2_1"])
    assert info.pin_uv_protocols == pick(profile, [1], [2, 1])
    newer = {"pinUvAuthToken", "credMgmt", "makeCredUvNotRqd"}
    assert (newer <= set(info.options)) == (profile[0] == "fido2.1")
    assert {"rk", "up", "plat", "clientPin"} <= set(info.options)
    # CTAP 2.0 §5.4 has members 0x01-0x06 only.
    assert (info.max_creds_in_list == 0) == (profile[0] == "fido2.0")
    assert (info.algorithms == []) == (profile[0] == "fido2.0")
    assert (info.remaining_disc_creds is None) == (profile[0] == "fido2.0")
    assert info.extensions == pick(profile, ["hmac-secret"], info.extensions)
    assert "credProtect" in info.extensions or profile[0] == "fido2.0"
    assert NEWER_OPTIONS & set(info.options) == pick(profile, set(), NEWER_OPTIONS)
    assert info.uv_modality == pick(profile, 0, 2)


def test_commands_that_came_with_2_1(profile, ctap2):
    for command, request in NEWER_COMMANDS.items():
        got = status_of(lambda: ctap2.send_cbor(command, request))
        if profile[0] == "fido2.0":
            assert got == ERR.INVALID_COMMAND, hex(command)
        else:
            assert got != ERR.INVALID_COMMAND, hex(command)


def test_pin_subcommands_and_protocols(profile, ctap2):
    # getPinUvAuthTokenUsingPinWithPermissions (0x09) and pinUvAuthProtocol 2 are 2.1's.
    assert status_of(lambda: ctap2.client_pin(1, 0x09)) == pick(profile, ERR.INVALID_SUBCOMMAND, ERR.MISSING_PARAMETER)
    assert status_of(lambda: ctap2.client_pin(2, ClientPin.CMD.GET_KEY_AGREEMENT)) == pick(profile, ERR.INVALID_PARAMETER, 0)


def test_rk_option_in_get_assertion(profile, ctap2):
    got = status_of(lambda: ctap2.get_assertion(RP["id"], cdh(), options={"rk": True}))
    assert got == pick(profile, ERR.INVALID_OPTION, ERR.UNSUPPORTED_OPTION)


def test_uv_option_without_built_in_uv(profile, ctap2):
    got = status_of(lambda: ctap2.make_credential(cdh(), RP, user(), ES256, options={"uv": True}))
    assert got == pick(profile, ERR.UNSUPPORTED_OPTION, ERR.INVALID_OPTION)
    got = status_of(lambda: ctap2.get_assertion(RP["id"], cdh(), options={"uv": True}))
    assert got == pick(profile, ERR.UNSUPPORTED_OPTION, ERR.INVALID_OPTION)


def test_entity_icons(profile, ctap2):
    # CTAP 2.0 §5.1: icon is a member of rp and user (a URL); 2.1 has none and ignores it.
    for entity in ("rp", "user"):
        args = {"rp": RP, "user": user()}
        args[entity] = {**args[entity], "icon": 7}
        got = status_of(lambda: ctap2.make_credential(cdh(), args["rp"], args["user"], ES256))
        assert got == pick(profile, ERR.CBOR_UNEXPECTED_TYPE, 0), entity
    rp = {**RP, "icon": "https://profiles.example.net/icon.png"}
    assert status_of(lambda: ctap2.make_credential(cdh(), rp, user(), ES256)) == 0


def test_pin_auth_with_a_missing_or_unknown_protocol(profile, ctap2):
    for protocol, fido21 in [(None, ERR.MISSING_PARAMETER), (3, ERR.INVALID_PARAMETER)]:
        got = status_of(lambda: ctap2.make_credential(cdh(), RP, user(), ES256, pin_uv_param=b"\x01" * 16,
                                                      pin_uv_protocol=protocol))
        assert got == pick(profile, ERR.PIN_AUTH_INVALID, fido21), protocol


def test_with_a_pin(profile, ctap2):
    """The differences that need a PIN, in one test so the PIN is set once per daemon."""
    client_pin = ClientPin(ctap2, PinProtocolV1())
    client_pin.set_pin(PIN)
    # makeCredential without pinAuth: 2.0 §5.1 step 6 wants the PIN for every credential;
    # 2.1 (makeCredUvNotRqd) only for a discoverable one.
    got = status_of(lambda: ctap2.make_credential(cdh(), RP, user(), ES256, options={"rk": False}))
    assert got == pick(profile, ERR.PUAT_REQUIRED, 0)
    assert status_of(lambda: ctap2.make_credential(cdh(), RP, user(), ES256, options={"rk": True})) == ERR.PUAT_REQUIRED
    # A getAssertion without pinAuth is answered without UV in both.
    assert status_of(lambda: ctap2.get_assertion(RP["id"], cdh())) == ERR.NO_CREDENTIALS

    # The legacy token: 2.0's pinToken serves until the next power cycle; 2.1's token is spent
    # once a request with it collected presence (§6.1.2 step 14).
    token = client_pin.get_pin_token(PIN)
    outcomes = []
    for _ in range(2):
        data = cdh()
        param = client_pin.protocol.authenticate(token, data)
        outcomes.append(status_of(lambda: ctap2.make_credential(data, RP, user(), ES256, pin_uv_param=param, pin_uv_protocol=1)))
    assert outcomes == pick(profile, [0, 0], [0, ERR.PIN_AUTH_INVALID])
    # The zero-length pinAuth probe is the same in both: after a touch, PIN_INVALID once a PIN is set.
    got = status_of(lambda: ctap2.make_credential(cdh(), RP, user(), ES256, pin_uv_param=b"", pin_uv_protocol=1))
    assert got == ERR.PIN_INVALID


def test_enterprise_attestation_before_it_is_enabled(profile, ctap2):
    # 2.0 has no enterprise attestation; 2.1 §6.1.2 step 9: not enabled (ep false) is INVALID_PARAMETER too.
    got = status_of(lambda: ctap2.make_credential(cdh(), RP, user(), ES256, enterprise_attestation=2))
    assert got == ERR.INVALID_PARAMETER
