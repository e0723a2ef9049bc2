"""python-fido2 (client and Fido2Server) and py_webauthn against the real daemon."""

from __future__ import annotations

import json
import os
import threading

import pytest
import webauthn
from fido2 import cbor
from fido2.attestation import Attestation, AttestationType
from fido2.client import ClientError
from fido2.cose import CoseKey
from fido2.ctap import CtapError
from fido2.ctap2 import Ctap2
from fido2.server import Fido2Server
from webauthn.helpers.cose import COSEAlgorithmIdentifier
from webauthn.helpers.structs import AttestationFormat

from conftest import ApprovingInteraction, make_client
from passkeyd_hid import presence, status

ES256 = -7
EDDSA = -8


def rp_for(name: str) -> tuple[str, str, Fido2Server]:
    """A private RP per test, so discoverable credentials of one test never meet another's."""
    rp_id = f"{name}.example.net"
    return rp_id, f"https://{rp_id}", Fido2Server({"id": rp_id, "name": name})


def user(name: str) -> dict:
    return {"id": os.urandom(16), "name": f"{name}@example.net", "displayName": name.title()}


def register(client, server, usr, *, alg=None, resident=True, exclude=None, event=None, uv=None):
    options, state = server.register_begin(
        usr, exclude, resident_key_requirement="required" if resident else "discouraged", user_verification=uv
    )
    public_key = options.public_key
    if alg is not None:
        public_key = {**dict(public_key), "pubKeyCredParams": [{"type": "public-key", "alg": alg}]}
    result = client.make_credential(public_key, event=event)
    auth_data = server.register_complete(state, result)
    return options.public_key.challenge, result, auth_data


def test_get_info_is_canonical_cbor(device):
    # strict_cbor re-encodes every response canonically and rejects any difference (CTAP 2.1 §8).
    info = Ctap2(device, strict_cbor=True).get_info()
    assert "FIDO_2_1" in info.versions or "FIDO_2_0" in info.versions
    assert info.options.get("rk") is True
    assert info.options.get("uv") is True  # --uv auto: built-in UV configured
    algs = {a["alg"] for a in info.algorithms}
    assert {ES256, EDDSA} <= algs
    assert info.max_msg_size >= 1024
    assert len(bytes(info.aaguid)) == 16


#: Every algorithm passkeyd offers that py_webauthn 3.0.1 also verifies (it has no ES384).
PY_WEBAUTHN_ALGORITHMS = {"ES256": ES256, "EdDSA": EDDSA, "ES512": -36, "PS256": -37, "RS256": -257,
                          "ML-DSA-44": -48, "ML-DSA-65": -49, "ML-DSA-87": -50}


@pytest.mark.parametrize("alg", PY_WEBAUTHN_ALGORITHMS.values(), ids=PY_WEBAUTHN_ALGORITHMS.keys())
def test_resident_registration_verified_by_both_servers(device, alg):
    rp_id, origin, server = rp_for(f"reg{-alg}")
    client = make_client(device, origin)
    usr = user("ada")
    challenge, result, auth_data = register(client, server, usr, alg=alg)

    cred = auth_data.credential_data
    assert cred.public_key[3] == alg
    assert auth_data.is_user_present()
    assert auth_data.is_user_verified()  # UV preferred and built-in UV configured
    assert result.client_extension_results.get("credProps", {}).get("rk") in (True, None)

    # The attestation statement itself verifies (packed self-attestation, or none).
    att = result.response.attestation_object
    verdict = Attestation.for_type(att.fmt)().verify(
        att.att_stmt, att.auth_data, result.response.client_data.hash
    )
    assert verdict.attestation_type in (AttestationType.SELF, AttestationType.NONE)

    verified = webauthn.verify_registration_response(
        credential=json.dumps(dict(result)),
        expected_challenge=challenge,
        expected_rp_id=rp_id,
        expected_origin=origin,
        require_user_verification=True,
        supported_pub_key_algs=[COSEAlgorithmIdentifier(alg)],
    )
    assert verified.credential_id == cred.credential_id
    assert verified.fmt in (AttestationFormat.PACKED, AttestationFormat.NONE)
    assert CoseKey.parse(cbor.decode(verified.credential_public_key)) == cred.public_key

    # And the credential is discoverable and signs for this RP.
    request, state = server.authenticate_begin()
    assertion = client.get_assertion(request.public_key).get_response(0)
    assert server.authenticate_complete(state, [cred], assertion) == cred
    assert assertion.response.user_handle == usr["id"]
    webauthn.verify_authentication_response(
        credential=json.dumps(dict(assertion)),
        expected_challenge=request.public_key.challenge,
        expected_rp_id=rp_id,
        expected_origin=origin,
        credential_public_key=verified.credential_public_key,
        credential_current_sign_count=verified.sign_count,
        require_user_verification=True,
    )


#: What passkeyd offers that py_webauthn 3.0.1 cannot verify, so python-fido2's server alone checks it.
FIDO2_SERVER_ONLY_ALGORITHMS = {"ES384": -35, "ES256K": -47}


@pytest.mark.parametrize("alg", FIDO2_SERVER_ONLY_ALGORITHMS.values(), ids=FIDO2_SERVER_ONLY_ALGORITHMS.keys())
def test_registration_and_assertion_verified_by_fido2_server(device, alg):
    rp_id, origin, server = rp_for(f"only{-alg}")
    client = make_client(device, origin)
    usr = user("grace")
    _, result, auth_data = register(client, server, usr, alg=alg)
    cred = auth_data.credential_data
    assert cred.public_key[3] == alg
    request, state = server.authenticate_begin([cred])
    assertion = client.get_assertion(request.public_key).get_response(0)
    assert server.authenticate_complete(state, [cred], assertion) == cred


def test_discoverable_assertion_across_three_accounts(device):
    rp_id, origin, server = rp_for("three")
    client = make_client(device, origin)
    users = [user(n) for n in ("alice", "bob", "carol")]
    creds = {}
    for usr in users:
        _, _, auth_data = register(client, server, usr)
        creds[usr["id"]] = auth_data.credential_data

    request, state = server.authenticate_begin()
    selection = client.get_assertion(request.public_key)
    # CTAP 2.1 §6.2.2: numberOfCredentials, then authenticatorGetNextAssertion for the rest.
    assertions = selection.get_assertions()
    assert len(assertions) == 3
    handles = set()
    for i in range(3):
        response = selection.get_response(i)
        handle = response.response.user_handle
        handles.add(handle)
        cred = creds[handle]
        assert server.authenticate_complete(state, list(creds.values()), response) == cred
        webauthn.verify_authentication_response(
            credential=json.dumps(dict(response)),
            expected_challenge=request.public_key.challenge,
            expected_rp_id=rp_id,
            expected_origin=origin,
            credential_public_key=cbor.encode(dict(cred.public_key)),
            credential_current_sign_count=0,
        )
    assert handles == set(creds)


def test_allow_list_assertion_with_non_resident_credential(device):
    rp_id, origin, server = rp_for("nonresident")
    client = make_client(device, origin)
    _, _, auth_data = register(client, server, user("dora"), resident=False)
    cred = auth_data.credential_data

    request, state = server.authenticate_begin([cred])
    response = client.get_assertion(request.public_key).get_response(0)
    assert server.authenticate_complete(state, [cred], response) == cred
    webauthn.verify_authentication_response(
        credential=json.dumps(dict(response)),
        expected_challenge=request.public_key.challenge,
        expected_rp_id=rp_id,
        expected_origin=origin,
        credential_public_key=cbor.encode(dict(cred.public_key)),
        credential_current_sign_count=0,
    )

    # Not discoverable: an empty allow list finds nothing for this RP.
    request, _ = server.authenticate_begin()
    with pytest.raises(ClientError) as err:
        client.get_assertion(request.public_key)
    assert err.value.code == ClientError.ERR.DEVICE_INELIGIBLE
    assert err.value.cause.code == CtapError.ERR.NO_CREDENTIALS


def test_exclude_list_refuses_a_second_registration(device):
    rp_id, origin, server = rp_for("exclude")
    client = make_client(device, origin)
    usr = user("erin")
    _, _, auth_data = register(client, server, usr)
    cred = auth_data.credential_data

    decoys = [{"type": "public-key", "id": os.urandom(32)} for _ in range(3)]
    with pytest.raises(ClientError) as err:
        register(client, server, usr, exclude=decoys + [cred])
    assert err.value.code == ClientError.ERR.DEVICE_INELIGIBLE
    assert err.value.cause.code == CtapError.ERR.CREDENTIAL_EXCLUDED

    # Unknown ids alone exclude nothing.
    register(client, server, user("frank"), exclude=decoys)


@pytest.fixture(scope="module")
def prompting(daemon_factory):
    """A daemon that waits for an explicit PRESENCE command; no built-in UV."""
    return daemon_factory("--presence", "prompt", "--uv", "off")


def test_cancel_during_prompt_wait(prompting):
    rp_id, origin, server = rp_for("cancel")
    dev = prompting.device()
    event = threading.Event()
    interaction = ApprovingInteraction(on_prompt=event.set)
    client = make_client(dev, origin, interaction)
    try:
        # KEEPALIVE UPNEEDED makes the client call prompt_up, which cancels (CTAP 2.1 §11.2.9.1.5).
        with pytest.raises(ClientError) as err:
            register(client, server, user("gina"), event=event, uv="discouraged")
        assert interaction.prompts >= 1
        assert err.value.code == ClientError.ERR.TIMEOUT
        assert err.value.cause.code == CtapError.ERR.KEEPALIVE_CANCEL

        # The cancelled registration left nothing behind (no UP needed to learn that).
        request, _ = server.authenticate_begin(user_verification="discouraged")
        with pytest.raises(ClientError) as err:
            client.get_assertion(request.public_key)
        assert err.value.cause.code == CtapError.ERR.NO_CREDENTIALS
    finally:
        dev.close()


def approve_from_another_connection(daemon, approve: bool, seen: list | None = None):
    def on_prompt():
        other = daemon.device()
        try:
            if seen is not None:
                seen.append(status(other))  # STATUS while the prompt waits
            presence(other, approve)
        finally:
            other.close()

    return on_prompt


def test_presence_command_approves_and_denies_a_prompt(prompting):
    rp_id, origin, server = rp_for("prompt")
    dev = prompting.device()
    try:
        seen: list[dict] = []
        approving = ApprovingInteraction(on_prompt=approve_from_another_connection(prompting, True, seen))
        _, _, auth_data = register(make_client(dev, origin, approving), server, user("hana"), uv="discouraged")
        assert approving.prompts >= 1
        assert auth_data.is_user_present()
        # The vendor STATUS map names the daemon and the wait it was in.
        assert seen[0]["pid"] == prompting.proc.pid
        assert seen[0]["pending"] != "none"
        assert status(dev)["pending"] == "none"

        denying = ApprovingInteraction(on_prompt=approve_from_another_connection(prompting, False))
        with pytest.raises(ClientError) as err:
            register(make_client(dev, origin, denying), server, user("ivan"), uv="discouraged")
        assert err.value.cause.code == CtapError.ERR.OPERATION_DENIED
    finally:
        dev.close()


def test_two_clients_at_once(daemon_factory):
    # Without user verification neither client takes a pinUvAuthToken: an authenticator holds
    # one token at a time (CTAP 2.1 §6.5.2.2), so two clients that each take one can interleave
    # into PIN_AUTH_INVALID, on a hardware key too. This test is about the two clients' messages.
    daemon = daemon_factory("--presence", "auto", "--uv", "off")
    barrier = threading.Barrier(2)
    errors: list[BaseException] = []
    verified: list[str] = []

    def run(name: str):
        dev = daemon.device()
        try:
            rp_id, origin, server = rp_for(f"concurrent-{name}")
            client = make_client(dev, origin)
            barrier.wait(timeout=30)
            for i in range(3):
                _, _, auth_data = register(client, server, user(f"{name}{i}"), resident=False, uv="discouraged")
                cred = auth_data.credential_data
                request, state = server.authenticate_begin([cred], user_verification="discouraged")
                response = client.get_assertion(request.public_key).get_response(0)
                server.authenticate_complete(state, [cred], response)
                verified.append(name)
        except BaseException as e:  # reported to the main thread below
            errors.append(e)
        finally:
            dev.close()

    threads = [threading.Thread(target=run, args=(n,)) for n in ("left", "right")]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert not any(t.is_alive() for t in threads), "a client hung"
    assert not errors, errors
    assert sorted(verified) == ["left"] * 3 + ["right"] * 3


@pytest.mark.parametrize("profile", ["fido2.0", "fido2.1-pre", "fido2.1", "fido2.2"])
def test_py_webauthn_verifies_every_generation(daemon_factory, profile):
    """python-fido2's client registers and signs in on each CTAP2 generation (docs/profiles.md),
    and py_webauthn verifies both ceremonies."""
    d = daemon_factory("--profile", profile, "--presence", "auto", "--uv", "auto")
    dev = d.device()
    try:
        rp_id, origin, server = rp_for(f"gen{profile.replace('.', '').replace('-', '')}")
        client = make_client(dev, origin)
        challenge, result, auth_data = register(client, server, user("grace"), alg=ES256)
        verified = webauthn.verify_registration_response(
            credential=json.dumps(dict(result)), expected_challenge=challenge, expected_rp_id=rp_id,
            expected_origin=origin, require_user_verification=True)
        request, state = server.authenticate_begin()
        assertion = client.get_assertion(request.public_key).get_response(0)
        webauthn.verify_authentication_response(
            credential=json.dumps(dict(assertion)), expected_challenge=request.public_key.challenge,
            expected_rp_id=rp_id, expected_origin=origin, credential_public_key=verified.credential_public_key,
            credential_current_sign_count=verified.sign_count, require_user_verification=True)
        assert assertion.raw_id == verified.credential_id
    finally:
        dev.close()
