"""py_webauthn, a relying party nobody here wrote, verifies what PasskeyClient produces.

Options come from py_webauthn's generate_*_options, go through `passkeyctl webauthn`
(PasskeyClient, the platform role) to the real daemon, and the responses go back to
py_webauthn's verify_*_response: ES256, EdDSA and ES512 (py_webauthn 3.0.1 has no ES384),
modal, conditional and immediate.
"""

from __future__ import annotations

import json
import os
import subprocess

import pytest
from webauthn import (
    generate_authentication_options,
    generate_registration_options,
    options_to_json,
    verify_authentication_response,
    verify_registration_response,
)
from webauthn.helpers.cose import COSEAlgorithmIdentifier
from webauthn.helpers.structs import (
    AuthenticatorSelectionCriteria,
    PublicKeyCredentialDescriptor,
    ResidentKeyRequirement,
    UserVerificationRequirement,
)

from conftest import ORIGIN, RP_ID, make_client

PASSKEYCTL = os.environ.get("PASSKEYCTL_BIN", os.path.join(os.path.dirname(__file__), "../../.build/debug/passkeyctl"))


def webauthn(daemon, ceremony: str, options_json: str, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [PASSKEYCTL, "webauthn", ceremony, "--socket", daemon.socket, "--origin", ORIGIN, *args],
        input=options_json.encode(), capture_output=True, timeout=60,
    )


def register(daemon, name: str, alg: COSEAlgorithmIdentifier):
    options = generate_registration_options(
        rp_id=RP_ID, rp_name="Example", user_name=name, user_id=name.encode(), user_display_name=name.title(),
        supported_pub_key_algs=[alg],
        authenticator_selection=AuthenticatorSelectionCriteria(
            resident_key=ResidentKeyRequirement.REQUIRED, user_verification=UserVerificationRequirement.PREFERRED),
    )
    done = webauthn(daemon, "create", options_to_json(options))
    assert done.returncode == 0, done.stderr.decode()
    verified = verify_registration_response(
        credential=done.stdout.decode(), expected_challenge=options.challenge, expected_rp_id=RP_ID,
        expected_origin=ORIGIN, require_user_verification=True, supported_pub_key_algs=[alg])
    assert verified.fmt == "none", "attestation none by default, as a browser conveys it"
    return verified


def authenticate(daemon, credential, *args: str, allow: bool = False, expected_user: str):
    options = generate_authentication_options(
        rp_id=RP_ID, user_verification=UserVerificationRequirement.PREFERRED,
        allow_credentials=[PublicKeyCredentialDescriptor(id=credential.credential_id)] if allow else None)
    done = webauthn(daemon, "get", options_to_json(options), *args)
    assert done.returncode == 0, done.stderr.decode()
    response = json.loads(done.stdout)
    verified = verify_authentication_response(
        credential=response, expected_challenge=options.challenge, expected_rp_id=RP_ID, expected_origin=ORIGIN,
        credential_public_key=credential.credential_public_key, credential_current_sign_count=credential.sign_count,
        require_user_verification=True)
    from base64 import urlsafe_b64decode
    handle = response["response"]["userHandle"]
    assert urlsafe_b64decode(handle + "=" * (-len(handle) % 4)) == expected_user.encode()
    return verified


@pytest.mark.parametrize("alg", [COSEAlgorithmIdentifier.ECDSA_SHA_256, COSEAlgorithmIdentifier.EDDSA, COSEAlgorithmIdentifier.ECDSA_SHA_512],
                         ids=["ES256", "EdDSA", "ES512"])
@pytest.mark.parametrize("mediation", ["modal", "conditional", "immediate"])
def test_py_webauthn_verifies_passkeyclient(daemon_factory, alg, mediation):
    daemon = daemon_factory("--presence", "auto", "--uv", "auto")
    alice = register(daemon, "alice", alg)
    bob = register(daemon, "bob", alg)
    verified = authenticate(daemon, bob, "--mediation", mediation, "--pick", "bob", expected_user="bob")
    assert verified.new_sign_count > bob.sign_count
    authenticate(daemon, alice, "--mediation", mediation, allow=True, expected_user="alice")


def test_immediate_without_a_local_passkey_fails_at_once(daemon_factory):
    daemon = daemon_factory("--presence", "deny", "--uv", "off")
    options = generate_authentication_options(rp_id=RP_ID)
    done = webauthn(daemon, "get", options_to_json(options), "--mediation", "immediate")
    assert done.returncode == 6
    assert b"NotAllowedError" in done.stderr


def test_password_chosen_over_a_passkey_comes_back_as_a_password(daemon_factory):
    daemon = daemon_factory("--presence", "auto", "--uv", "auto")
    register(daemon, "carol", COSEAlgorithmIdentifier.ECDSA_SHA_256)
    options = generate_authentication_options(rp_id=RP_ID)
    done = webauthn(daemon, "get", options_to_json(options), "--password", "carol@example.com:s3cret",
                    "--pick", "carol@example.com")
    assert done.returncode == 0, done.stderr.decode()
    assert json.loads(done.stdout) == {"type": "password", "id": "carol@example.com", "password": "s3cret"}


def test_no_daemon_is_a_sentence_and_exit_code_2(tmp_path):
    class Nowhere:
        socket = str(tmp_path / "none.sock")
    options = generate_authentication_options(rp_id=RP_ID)
    done = webauthn(Nowhere, "get", options_to_json(options))
    assert done.returncode == 2
    assert b"No daemon at" in done.stderr
    as_json = webauthn(Nowhere, "get", options_to_json(options), "--json")
    assert as_json.returncode == 2
    assert json.loads(as_json.stdout)["error"]["kind"] == "no-daemon"


def test_large_blobs_written_by_one_client_are_read_by_the_other(daemon_factory):
    """PasskeyClient's largeBlob extension (WebAuthn L3 §10.1.5) and python-fido2's agree on the
    array's format (CTAP 2.1 §6.10.3: DEFLATE, AES-GCM under the credential's largeBlobKey)."""
    from fido2.utils import websafe_decode, websafe_encode


    daemon = daemon_factory("--presence", "auto", "--uv", "auto")
    options = json.loads(options_to_json(generate_registration_options(
        rp_id=RP_ID, rp_name="Example", user_name="dana", user_id=b"dana",
        authenticator_selection=AuthenticatorSelectionCriteria(resident_key=ResidentKeyRequirement.REQUIRED))))
    options["extensions"] = {"largeBlob": {"support": "required"}}
    created = webauthn(daemon, "create", json.dumps(options))
    assert created.returncode == 0, created.stderr.decode()
    registration = json.loads(created.stdout)
    assert registration["clientExtensionResults"]["largeBlob"] == {"supported": True}

    def passkeyclient_get(large_blob: dict) -> dict:
        request = json.loads(options_to_json(generate_authentication_options(
            rp_id=RP_ID, allow_credentials=[PublicKeyCredentialDescriptor(id=websafe_decode(registration["rawId"]))])))
        request["extensions"] = {"largeBlob": large_blob}
        done = webauthn(daemon, "get", json.dumps(request))
        assert done.returncode == 0, done.stderr.decode()
        return json.loads(done.stdout)["clientExtensionResults"]["largeBlob"]

    def python_fido2_get(large_blob: dict) -> dict:
        dev = daemon.device()
        try:
            result = make_client(dev).get_assertion({
                "rpId": RP_ID, "challenge": os.urandom(32), "userVerification": "required",
                "allowCredentials": [{"type": "public-key", "id": websafe_decode(registration["rawId"])}],
                "extensions": {"largeBlob": large_blob}})
            return dict(result.get_response(0).client_extension_results["largeBlob"])
        finally:
            dev.close()

    first, second = b"written by PasskeyClient " * 20, b"written by python-fido2 " * 20
    assert passkeyclient_get({"write": websafe_encode(first)}) == {"written": True}
    assert websafe_decode(python_fido2_get({"read": True})["blob"]) == first
    assert python_fido2_get({"write": second})["written"] is True
    assert websafe_decode(passkeyclient_get({"read": True})["blob"]) == second
