"""`passkeyd --profile fido2.0 | fido2.1-pre | fido2.1 | fido2.2`: what each advertises, and
every difference between the generations listed in docs/profiles.md, provoked on each profile
with python-fido2. EXPECTED is the conformance expectation set, written from the specs'
differences: each row names what each generation answers, and every profile is judged by
its own generation's row, so none bends another's rules."""

from __future__ import annotations

import os
from hashlib import sha256

import pytest
from fido2 import cbor
from fido2.ctap import CtapError
from fido2.ctap2 import Ctap2
from fido2.ctap2.bio import FPBioEnrollment
from fido2.ctap2.pin import ClientPin, PinProtocolV1
from fido2.hid import CAPABILITY

ERR = CtapError.ERR
RP = {"id": "profiles.example.net", "name": "Profiles"}
ES256 = [{"type": "public-key", "alg": -7}]
PIN = "4826"
MAKE_CREDENTIAL, GET_ASSERTION, CLIENT_PIN = 0x01, 0x02, 0x06
CRED_MGMT, SELECTION, CRED_MGMT_PREVIEW = 0x0A, 0x0B, 0x41
BIO_ENROLLMENT, LARGE_BLOBS, CONFIG, BIO_ENROLLMENT_PREVIEW = 0x09, 0x0C, 0x0D, 0x40
# A harmless request for each command that came after 2.0: getFingerprintSensorInfo, a one-byte
# large-blob read, an unknown config subcommand (INVALID_SUBCOMMAND where the command exists).
NEWER_COMMANDS = {
    CRED_MGMT: {1: 1}, CRED_MGMT_PREVIEW: {1: 1}, SELECTION: None,
    BIO_ENROLLMENT: {1: 1, 2: 7}, BIO_ENROLLMENT_PREVIEW: {1: 1, 2: 7}, LARGE_BLOBS: {1: 1, 3: 0}, CONFIG: {1: 0x7F},
}
PREVIEW_COMMANDS = {CRED_MGMT_PREVIEW, BIO_ENROLLMENT_PREVIEW}
# getInfo options that name a 2.1 (or 2.2) command or token: a 2.0 or review-draft key advertises none of them.
NEWER_OPTIONS = {"bioEnroll", "largeBlobs", "authnrCfg", "perCredMgmtRO", "ep", "alwaysUv", "setMinPINLength"}
PROFILES = ["fido2.0", "fido2.1-pre", "fido2.1", "fido2.2"]


def by_rules(ctap20, ctap21, **exceptions):
    """A row where the review draft keeps CTAP 2.0's answer and 2.2 keeps 2.1's, unless `exceptions`
    (keyed by profile name with '.' and '-' as '_') say otherwise."""
    row = {"fido2.0": ctap20, "fido2.1-pre": ctap20, "fido2.1": ctap21, "fido2.2": ctap21}
    row.update({name: exceptions[key] for name in PROFILES if (key := name.replace(".", "_").replace("-", "_")) in exceptions})
    return row


# The expectation set (docs/profiles.md, "Differences implemented": each row's number there).
EXPECTED = {
    # 1: getInfo versions and members (2.0 §5.4; 2.1 §6.4; 2.2 §6.4).
    "versions": {"fido2.0": ["U2F_V2", "FIDO_2_0"], "fido2.1-pre": ["U2F_V2", "FIDO_2_0", "FIDO_2_1_PRE"],
                 "fido2.1": ["U2F_V2", "FIDO_2_0", "FIDO_2_1"], "fido2.2": ["U2F_V2", "FIDO_2_0", "FIDO_2_1", "FIDO_2_2"]},
    "members 0x07-0x0A": by_rules(False, True, fido2_1_pre=True),
    "members 0x0B-0x14": by_rules(False, True),
    "members of 2.2": by_rules(False, False, fido2_2=True),
    "2.1 options": by_rules(False, True),
    "preview options": by_rules(set(), set(), fido2_1_pre={"credentialMgmtPreview", "userVerificationMgmtPreview"}),
    # 2: extensions (2.0 §9; the review draft's keys: credProtect and hmac-secret; 2.1 §12).
    "extensions": by_rules({"hmac-secret"}, None, fido2_1_pre={"credProtect", "hmac-secret"}),
    # 3: commands (2.0 §5; 2.1 §6, §6.12, §6.13).
    "commands": by_rules(set(), set(NEWER_COMMANDS), fido2_1_pre=PREVIEW_COMMANDS),
    # 4, 5: clientPIN subcommand 0x09 and pinUvAuthProtocol 2 (2.0 §5.5; 2.1 §6.5.4, §6.5.5.7.2).
    "getPinUvAuthTokenUsingPinWithPermissions": by_rules(ERR.INVALID_SUBCOMMAND, ERR.MISSING_PARAMETER),
    "protocol 2": by_rules(ERR.INVALID_PARAMETER, 0),
    # 6: makeCredential without pinAuth on a device with a PIN (2.0 §5.1 step 6; 2.1 §6.1.2 step 11).
    "non-discoverable without pinAuth": by_rules(ERR.PUAT_REQUIRED, 0),
    # 7: pinAuth with pinProtocol missing / unsupported (2.0 §5.1 step 7; 2.1 §6.1.2 step 2).
    "pinProtocol missing": by_rules(ERR.PIN_AUTH_INVALID, ERR.MISSING_PARAMETER),
    "pinProtocol unsupported": by_rules(ERR.PIN_AUTH_INVALID, ERR.INVALID_PARAMETER),
    # 8, 9: options (2.0 §5.2 step 5; 2.1 §6.2.2 step 5).
    "rk in getAssertion": by_rules(ERR.INVALID_OPTION, ERR.UNSUPPORTED_OPTION),
    "uv without built-in UV": by_rules(ERR.UNSUPPORTED_OPTION, ERR.INVALID_OPTION),
    # 10: the pinToken used twice (2.0 §5.5.7; 2.1 §6.1.2 step 14).
    "token used twice": by_rules([0, 0], [0, ERR.PIN_AUTH_INVALID]),
    # 11: a mistyped icon (2.0 §5.1; gone in 2.1).
    "mistyped icon": by_rules(ERR.CBOR_UNEXPECTED_TYPE, 0),
    # 12: getPinToken's token for credential management (review draft: 2.1 §6.13; 2.1 §6.5.5.7.1).
    "getPinToken token, credential management": by_rules(ERR.INVALID_COMMAND, ERR.PIN_AUTH_INVALID, fido2_1_pre=0),
    # 13: updateUserInformation (2.1 §6.8.7; not in the prototype 0x41).
    "updateUserInformation": by_rules(ERR.INVALID_COMMAND, ERR.NO_CREDENTIALS, fido2_1_pre=ERR.INVALID_SUBCOMMAND),
}


def expected(profile, row):
    return EXPECTED[row][profile[0]]


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


@pytest.fixture(scope="module", params=PROFILES)
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


def credential_management(ctap2, profile, protocol, token, sub_command, params=None):
    """A credential management request under the generation's own command byte, authenticated
    by `token` over subCommand || subCommandParams (2.1 §6.8.1)."""
    message = bytes([sub_command]) + (cbor.encode(params) if params is not None else b"")
    request = {1: sub_command, 3: protocol.VERSION, 4: protocol.authenticate(token, message)}
    if params is not None:
        request[2] = params
    command = CRED_MGMT_PREVIEW if profile[0] == "fido2.1-pre" else CRED_MGMT
    return ctap2.send_cbor(command, request)


def test_get_info_and_capabilities(profile, ctap2):
    info = ctap2.get_info()
    assert ctap2.device.capabilities & CAPABILITY.CBOR
    assert not ctap2.device.capabilities & CAPABILITY.NMSG
    assert info.versions == expected(profile, "versions")
    assert info.pin_uv_protocols == ([1] if expected(profile, "protocol 2") else [2, 1])
    newer = {"pinUvAuthToken", "credMgmt", "makeCredUvNotRqd"}
    assert (newer <= set(info.options)) == expected(profile, "2.1 options")
    assert not newer & set(info.options) or expected(profile, "2.1 options")
    assert {"rk", "up", "plat", "clientPin"} <= set(info.options)
    assert {"credentialMgmtPreview", "userVerificationMgmtPreview"} & set(info.options) == expected(profile, "preview options")
    # CTAP 2.0 §5.4 has members 0x01-0x06 only; the review draft adds 0x07-0x0A.
    assert (info.max_creds_in_list != 0) == expected(profile, "members 0x07-0x0A")
    assert (info.algorithms != []) == expected(profile, "members 0x07-0x0A")
    assert (info.transports == ["usb"]) == expected(profile, "members 0x07-0x0A")
    assert (info.remaining_disc_creds is not None) == expected(profile, "members 0x0B-0x14")
    assert (info.firmware_version != 0) == expected(profile, "members 0x0B-0x14")
    want = expected(profile, "extensions")
    assert set(info.extensions) == want if want is not None else {"credProtect", "hmac-secret", "credBlob"} <= set(info.extensions)
    assert bool(NEWER_OPTIONS & set(info.options)) == expected(profile, "2.1 options")
    assert NEWER_OPTIONS & set(info.options) in (set(), NEWER_OPTIONS)
    assert info.uv_modality == (2 if expected(profile, "2.1 options") else 0)


def test_members_of_2_2(profile, ctap2):
    # CTAP 2.2 §6.4, each as this device does it (python-fido2 2.2 names them).
    info = ctap2.get_info()
    if not expected(profile, "members of 2.2"):
        assert info.uv_count_since_pin is None and info.transports_for_reset == []
        assert info.pin_complexity_policy is None and info.authenticator_config_commands is None
        return
    assert info.attestation_formats == ["packed", "none"]
    # --bio: a built-in UV method exists (nothing enrolled, nothing counted yet).
    assert info.uv_count_since_pin == 0
    assert info.long_touch_for_reset is False and info.transports_for_reset == ["usb"]
    assert info.pin_complexity_policy is False and info.max_pin_length == 63
    # toggleAlwaysUv, setMinPINLength, and enableEnterpriseAttestation (--attestation x5c).
    assert info.authenticator_config_commands == [1, 2, 3]


def test_commands_that_came_after_2_0(profile, ctap2):
    answered = expected(profile, "commands")
    for command, request in NEWER_COMMANDS.items():
        got = status_of(lambda: ctap2.send_cbor(command, request))
        assert (got != ERR.INVALID_COMMAND) == (command in answered), hex(command)


def test_pin_subcommands_and_protocols(profile, ctap2):
    # getPinUvAuthTokenUsingPinWithPermissions (0x09) and pinUvAuthProtocol 2 are 2.1's.
    assert status_of(lambda: ctap2.client_pin(1, 0x09)) == expected(profile, "getPinUvAuthTokenUsingPinWithPermissions")
    assert status_of(lambda: ctap2.client_pin(2, ClientPin.CMD.GET_KEY_AGREEMENT)) == expected(profile, "protocol 2")


def test_rk_option_in_get_assertion(profile, ctap2):
    got = status_of(lambda: ctap2.get_assertion(RP["id"], cdh(), options={"rk": True}))
    assert got == expected(profile, "rk in getAssertion")


def test_uv_option_without_built_in_uv(profile, ctap2):
    got = status_of(lambda: ctap2.make_credential(cdh(), RP, user(), ES256, options={"uv": True}))
    assert got == expected(profile, "uv without built-in UV")
    got = status_of(lambda: ctap2.get_assertion(RP["id"], cdh(), options={"uv": True}))
    assert got == expected(profile, "uv without built-in UV")


def test_entity_icons(profile, ctap2):
    # CTAP 2.0 §5.1: icon is a member of rp and user (a URL); 2.1 has none and ignores it.
    for entity in ("rp", "user"):
        args = {"rp": RP, "user": user()}
        args[entity] = {**args[entity], "icon": 7}
        got = status_of(lambda: ctap2.make_credential(cdh(), args["rp"], args["user"], ES256))
        assert got == expected(profile, "mistyped icon"), entity
    rp = {**RP, "icon": "https://profiles.example.net/icon.png"}
    assert status_of(lambda: ctap2.make_credential(cdh(), rp, user(), ES256)) == 0


def test_pin_auth_with_a_missing_or_unknown_protocol(profile, ctap2):
    for protocol, row in [(None, "pinProtocol missing"), (3, "pinProtocol unsupported")]:
        got = status_of(lambda: ctap2.make_credential(cdh(), RP, user(), ES256, pin_uv_param=b"\x01" * 16,
                                                      pin_uv_protocol=protocol))
        assert got == expected(profile, row), protocol


def test_with_a_pin(profile, ctap2):
    """The differences that need a PIN, in one test so the PIN is set once per daemon."""
    client_pin = ClientPin(ctap2, PinProtocolV1())
    client_pin.set_pin(PIN)
    # makeCredential without pinAuth: 2.0 §5.1 step 6 wants the PIN for every credential;
    # 2.1 (makeCredUvNotRqd) only for a discoverable one.
    got = status_of(lambda: ctap2.make_credential(cdh(), RP, user(), ES256, options={"rk": False}))
    assert got == expected(profile, "non-discoverable without pinAuth")
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
    assert outcomes == expected(profile, "token used twice")
    # The zero-length pinAuth probe is the same in all: after a touch, PIN_INVALID once a PIN is set.
    got = status_of(lambda: ctap2.make_credential(cdh(), RP, user(), ES256, pin_uv_param=b"", pin_uv_protocol=1))
    assert got == ERR.PIN_INVALID

    # getPinToken's token for credential management, under the generation's own command.
    token = client_pin.get_pin_token(PIN)
    got = status_of(lambda: credential_management(ctap2, profile, client_pin.protocol, token, 0x01))
    assert got == expected(profile, "getPinToken token, credential management")
    # updateUserInformation, with the token each generation manages credentials with.
    if expected(profile, "2.1 options"):
        token = client_pin.get_pin_token(PIN, ClientPin.PERMISSION.CREDENTIAL_MGMT)
    params = {2: {"type": "public-key", "id": os.urandom(16)}, 3: {"id": b"u", "name": "renamed"}}
    got = status_of(lambda: credential_management(ctap2, profile, client_pin.protocol, token, 0x07, params))
    assert got == expected(profile, "updateUserInformation")


def test_credential_store_state(profile, ctap2):
    """2.2 §6.4 encCredStoreState, for the persistent token's holder: it changes with the
    discoverable credentials, and reads the same when they are the same again. Runs after
    test_with_a_pin, which set the PIN."""
    if not expected(profile, "members of 2.2"):
        assert ctap2.get_info().enc_cred_store_state is None
        return
    client_pin = ClientPin(ctap2, PinProtocolV1())
    persistent = client_pin.get_pin_token(PIN, ClientPin.PERMISSION.PERSISTENT_CREDENTIAL_MGMT)
    before = ctap2.get_info().get_cred_store_state(persistent)
    assert before is not None and len(before) == 16
    token = client_pin.get_pin_token(PIN, ClientPin.PERMISSION.MAKE_CREDENTIAL, RP["id"])
    data = cdh()
    made = ctap2.make_credential(data, RP, user(), ES256, options={"rk": True},
                                 pin_uv_param=client_pin.protocol.authenticate(token, data), pin_uv_protocol=1)
    after = ctap2.get_info().get_cred_store_state(persistent)
    assert after != before
    token = client_pin.get_pin_token(PIN, ClientPin.PERMISSION.CREDENTIAL_MGMT)
    descriptor = {"type": "public-key", "id": made.auth_data.credential_data.credential_id}
    assert status_of(lambda: credential_management(ctap2, profile, client_pin.protocol, token, 0x06, {2: descriptor})) == 0
    assert ctap2.get_info().get_cred_store_state(persistent) == before


def test_enterprise_attestation_before_it_is_enabled(profile, ctap2):
    # 2.0 has no enterprise attestation; 2.1 §6.1.2 step 9: not enabled (ep false) is INVALID_PARAMETER too.
    got = status_of(lambda: ctap2.make_credential(cdh(), RP, user(), ES256, enterprise_attestation=2))
    assert got == ERR.INVALID_PARAMETER


def test_bio_enrollment_with_the_generations_token(profile, ctap2):
    """Row 12 for bio enrollment: the review draft enrolls a finger through 0x40 with
    getPinToken's token (0x09 is not there); 2.1 through 0x09 with the be permission. Last in
    the file: the PIN is set (test_with_a_pin), and an enrolled finger is built-in UV from now on."""
    info = ctap2.get_info()
    if not expected(profile, "commands"):
        assert not FPBioEnrollment.is_supported(info)
        return
    client_pin = ClientPin(ctap2, PinProtocolV1())
    permissions = ClientPin.PERMISSION.BIO_ENROLL if expected(profile, "2.1 options") else None
    bio = FPBioEnrollment(ctap2, client_pin.protocol, client_pin.get_pin_token(PIN, permissions))
    context = bio.enroll()
    template = None
    while template is None:
        template = context.capture()
    assert template in bio.enumerate_enrollments()
    # Row 14 (2.2 §6.4 uvCountSinceLastPinEntry): each built-in UV counts, a correct PIN clears it.
    if expected(profile, "members of 2.2"):
        before = ctap2.get_info().uv_count_since_pin
        ctap2.make_credential(cdh(), RP, user(), ES256, options={"rk": True, "uv": True})
        ctap2.get_assertion(RP["id"], cdh(), options={"uv": True})
        assert ctap2.get_info().uv_count_since_pin == before + 2
        client_pin.get_pin_token(PIN, ClientPin.PERMISSION.GET_ASSERTION, RP["id"])
        assert ctap2.get_info().uv_count_since_pin == 0
