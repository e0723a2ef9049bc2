"""Test controls against the real daemon, judged by real verifiers: each armed fault flips
what Fido2Server and py_webauthn say, and the next transaction verifies again; `passkeyctl
watch --json` shows a scripted session in order (docs/testing-your-relying-party.md)."""

from __future__ import annotations

import base64
import json
import os
import subprocess
import time
import zlib

import pytest
import webauthn
from fido2 import cbor
from fido2.client import ClientError
from fido2.server import Fido2Server
from webauthn.helpers.exceptions import InvalidAuthenticationResponse

from conftest import make_client
from passkeyd_pin import passkeyctl, passkeyctl_binary


@pytest.fixture(scope="module")
def daemon(daemon_factory):
    return daemon_factory("--presence", "auto", "--uv", "auto")


def unpadded_b64url(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def ctl(daemon, *args: str) -> subprocess.CompletedProcess:
    result = passkeyctl(daemon.socket, *args, pin=None)
    assert result.returncode == 0, result.stderr
    return result


class Account:
    """One RP with one registered passkey, and what its server remembers of it."""

    def __init__(self, device, name: str, *, large_blob: bool = False, algorithm: int | None = None):
        self.rp_id = f"{name}.controls.example"
        self.origin = f"https://{self.rp_id}"
        self.server = Fido2Server({"id": self.rp_id, "name": name})
        if algorithm is not None:
            self.server.allowed_algorithms = [{"type": "public-key", "alg": algorithm}]
        self.client = make_client(device, self.origin)
        options, state = self.server.register_begin(
            {"id": os.urandom(16), "name": f"{name}@example.net", "displayName": name},
            resident_key_requirement="required", user_verification="required",
            extensions={"largeBlob": {"support": "required"}} if large_blob else None)
        result = self.client.make_credential(options.public_key)
        self.credential = self.server.register_complete(state, result).credential_data
        self.sign_count = 0

    def attempt(self, *, require_uv: bool = True) -> tuple[str | None, str | None]:
        """One sign-in judged by both servers: (Fido2Server's refusal, py_webauthn's refusal), None
        where one accepts. The stored count moves only when both accept, as an RP's would."""
        request, state = self.server.authenticate_begin(user_verification="required" if require_uv else "discouraged")
        response = self.client.get_assertion(request.public_key).get_response(0)
        fido2_error = webauthn_error = None
        try:
            self.server.authenticate_complete(state, [self.credential], response)
        except ValueError as e:
            fido2_error = str(e)
        try:
            verified = webauthn.verify_authentication_response(
                credential=json.dumps(dict(response)),
                expected_challenge=request.public_key.challenge,
                expected_rp_id=self.rp_id,
                expected_origin=self.origin,
                credential_public_key=cbor.encode(dict(self.credential.public_key)),
                credential_current_sign_count=self.sign_count,
                require_user_verification=require_uv,
            )
        except InvalidAuthenticationResponse as e:
            webauthn_error = str(e)
        if fido2_error is None and webauthn_error is None:
            self.sign_count = verified.new_sign_count
        return fido2_error, webauthn_error

    def sign_in(self) -> None:
        assert self.attempt() == (None, None)

    def large_blob(self, **request) -> dict:
        """A sign-in that reads (read=True) or writes (write=bytes) the passkey's large blob
        (WebAuthn L3 §10.1.5), through python-fido2's client; the extension's client output."""
        options, _ = self.server.authenticate_begin(user_verification="required", extensions={"largeBlob": request})
        response = self.client.get_assertion(options.public_key).get_response(0)
        return dict(response.client_extension_results["largeBlob"])


def daemon_with_account(daemon_factory, name: str, *flags: str, sign_ins: int = 1, large_blob: bool = False,
                        algorithm: int | None = None):
    """A fresh daemon (presence and UV automatic, private keys exportable, plus `flags`) with one
    passkey registered and used `sign_ins` times; the device is closed again."""
    daemon = daemon_factory("--presence", "auto", "--uv", "auto", "--allow-private-key-export", *flags)
    dev = daemon.device()
    try:
        account = Account(dev, name, large_blob=large_blob, algorithm=algorithm)
        for _ in range(sign_ins):
            account.sign_in()
    finally:
        dev.close()
    return daemon, account


@pytest.mark.parametrize("fault,require_uv,fido2_says,webauthn_says", [
    ("bogus-signature", True, "Invalid signature.", "signature"),
    ("clear-uv", True, "User verification required, but user verified flag not set.", "verif"),
    ("clear-up", False, "User Present flag not set.", "not present"),
])
def test_a_lying_response_is_rejected_once_then_sign_in_verifies(daemon, device, fault, require_uv, fido2_says, webauthn_says):
    account = Account(device, fault.replace("-", ""))
    ctl(daemon, "fault", "set", fault, "--rp", account.rp_id)
    fido2_error, webauthn_error = account.attempt(require_uv=require_uv)
    assert fido2_error == fido2_says
    assert webauthn_error and webauthn_says in webauthn_error.lower()
    account.sign_in()  # --count 1 (the default): the next transaction verifies again


@pytest.mark.parametrize("fault", ["counter-rewind=2", "counter-freeze", "counter-zero"])
def test_a_counter_that_does_not_advance_is_caught_by_the_sign_count_check(daemon, device, fault):
    account = Account(device, "counter" + fault.split("=")[0].split("-")[1])
    for _ in range(3):
        account.sign_in()
    ctl(daemon, "fault", "set", fault, "--rp", account.rp_id)
    fido2_error, webauthn_error = account.attempt()
    assert fido2_error is None, "Fido2Server keeps no counter"
    assert webauthn_error and "sign count" in webauthn_error
    account.sign_in()  # the device's own counter kept advancing underneath


def test_status_fault_answers_that_status_and_list_shows_what_is_armed(daemon, device):
    account = Account(device, "status")
    ctl(daemon, "fault", "set", "status=CTAP2_ERR_PIN_AUTH_BLOCKED", "--count", "2", "--rp", account.rp_id)
    armed = json.loads(ctl(daemon, "--json", "fault", "list").stdout)
    assert {"fault": "status=CTAP2_ERR_PIN_AUTH_BLOCKED", "remaining": 2, "rpId": account.rp_id} in armed
    for _ in range(2):
        with pytest.raises(ClientError) as err:
            account.attempt()
        assert err.value.cause.code == 0x34
    account.sign_in()
    assert json.loads(ctl(daemon, "--json", "fault", "list").stdout) == []


def test_deny_refuses_and_latency_keeps_keepalives_flowing(daemon, device):
    account = Account(device, "denylatency")
    ctl(daemon, "fault", "set", "deny", "--rp", account.rp_id)
    with pytest.raises(ClientError):
        account.attempt()
    ctl(daemon, "fault", "set", "latency=1500", "--rp", account.rp_id)
    started = time.monotonic()
    account.sign_in()  # python-fido2 gives up on a device silent for longer than this; keepalives keep it waiting
    assert time.monotonic() - started >= 1.5


def test_drop_makes_the_device_vanish_mid_transaction(daemon, device):
    account = Account(device, "drop")
    ctl(daemon, "fault", "set", "drop", "--rp", account.rp_id)
    with pytest.raises(Exception):
        account.attempt()
    fresh = daemon.device()
    try:
        account.client = make_client(fresh, account.origin)
        account.sign_in()
    finally:
        fresh.close()


def test_counter_freeze_holds_for_its_count_and_across_a_restart(daemon_factory):
    first, account = daemon_with_account(daemon_factory, "frozen", sign_ins=2)
    assert first.stop() == 0
    again = daemon_factory("--presence", "auto", "--uv", "auto", data_dir=first.data_dir)
    ctl(again, "fault", "set", "counter-freeze", "--count", "2")
    dev = again.device()
    try:
        account.client = make_client(dev, account.origin)
        for _ in range(2):
            fido2_error, webauthn_error = account.attempt()
            assert webauthn_error and "sign count" in webauthn_error, "the count the RP last saw, again"
        account.sign_in()
        assert account.sign_count == 3, "after a clean restart the counter goes on by one, as a hardware key's"
    finally:
        dev.close()


def test_clear_disarms_everything_and_bad_spellings_are_refused(daemon):
    ctl(daemon, "fault", "set", "bogus-signature", "--always")
    ctl(daemon, "fault", "clear")
    assert "No faults armed." in ctl(daemon, "fault", "list").stdout
    bad = passkeyctl(daemon.socket, "fault", "set", "counter-rewind=zero", pin=None)
    assert bad.returncode == 1 and "positive whole number" in bad.stderr


def test_faults_do_not_survive_a_restart(daemon_factory):
    first = daemon_factory("--presence", "auto", "--uv", "auto")
    ctl(first, "fault", "set", "drop", "--always")
    assert first.stop() == 0
    again = daemon_factory("--presence", "auto", "--uv", "auto", data_dir=first.data_dir)
    assert json.loads(ctl(again, "--json", "fault", "list").stdout) == []


def test_watch_shows_a_scripted_session_in_order(daemon, device):
    watcher = subprocess.Popen(
        [passkeyctl_binary(), "--socket", daemon.socket, "--json", "watch"], stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True, env={k: v for k, v in os.environ.items() if not k.startswith("PASSKEY")})
    try:
        assert "Watching" in watcher.stderr.readline()  # subscribed: everything from here on is shown
        account = Account(device, "watched")
        ctl(daemon, "fault", "set", "counter-zero", "--rp", account.rp_id)
        account.sign_in()
        events = []
        deadline = time.monotonic() + 20
        while len(events) < 3 and time.monotonic() < deadline:
            line = watcher.stdout.readline()
            if not line:
                break
            event = json.loads(line)
            if event.get("rpId") == account.rp_id:
                events.append(event)
    finally:
        watcher.terminate()
        watcher.wait(10)
    assert [e["event"] for e in events] == ["credential.added", "fault.fired", "credential.asserted"]
    added, fired, asserted = events
    assert added["userName"] == "watched@example.net" and added["signCount"] == 0
    assert fired["detail"] == "counter-zero"
    assert asserted["credentialId"] == added["credentialId"] and asserted["signCount"] == 0
    for event in events:
        assert not {"privateKey", "pin", "token"} & set(event)


def test_export_and_import_carry_a_passkey_to_a_fresh_daemon(daemon_factory, tmp_path):
    source, account = daemon_with_account(daemon_factory, "exported")
    public = json.loads(ctl(source, "export", "--rp", account.rp_id).stdout)
    assert len(public) == 1 and "privateKey" not in public[0], "keys leave only when asked for"
    path = tmp_path / "credentials.json"
    ctl(source, "export", "--rp", account.rp_id, "--include-private-keys", "--output", str(path))
    assert os.stat(path).st_mode & 0o777 == 0o600
    exported = json.loads(path.read_text())
    assert exported[0]["rpId"] == account.rp_id and exported[0]["signCount"] == 1 and exported[0]["algorithm"] == -7
    assert exported[0]["privateKey"] not in source.log(), "a private key never reaches the log"

    target = daemon_factory("--presence", "auto", "--uv", "auto")
    assert "Imported 1 credential." in ctl(target, "import", str(path)).stdout
    dev = target.device()
    try:
        account.client = make_client(dev, account.origin)
        account.sign_in()  # the RP's stored public key verifies, and the counter went on from 1
        assert account.sign_count == 2
    finally:
        dev.close()


def _corrupt(entries: list[dict], how: str) -> None:
    """Spoils the second entry of an export one way."""
    second = entries[1]
    if how == "bad base64url":
        second["userHandle"] = "not*base64"
    elif how == "duplicate id":
        second["credentialId"] = entries[0]["credentialId"]
    elif how == "wrong key type":
        second["privateKey"] = entries[0]["privateKey"][:40]  # a truncated PKCS#8 is no key at all
    elif how == "mismatched algorithm":
        second["algorithm"] = -8  # an ES256 key declared EdDSA
    elif how == "missing rpId":
        del second["rpId"]
    elif how == "no private key":
        del second["privateKey"]  # as `export` without --include-private-keys writes it


@pytest.mark.parametrize("how", ["bad base64url", "duplicate id", "wrong key type", "mismatched algorithm", "missing rpId",
                                 "no private key"])
def test_import_names_the_bad_entry_and_imports_nothing(daemon_factory, tmp_path, how):
    source, _ = daemon_with_account(daemon_factory, "first")
    dev = source.device()
    try:
        Account(dev, "second")
    finally:
        dev.close()
    exported = json.loads(ctl(source, "export", "--include-private-keys").stdout)
    assert len(exported) == 2
    _corrupt(exported, how)
    path = tmp_path / "credentials.json"
    path.write_text(json.dumps(exported))
    target = daemon_factory("--presence", "auto", "--uv", "auto")
    result = passkeyctl(target.socket, "import", str(path), pin=None)
    assert result.returncode != 0
    assert "redential 2" in result.stderr, result.stderr  # the entry is named
    if how == "no private key":
        assert "--include-private-keys" in result.stderr, "the way to a file that imports"
    assert json.loads(ctl(target, "export").stdout) == [], "nothing imported"


def test_import_refuses_an_id_stored_for_another_account(daemon_factory, tmp_path):
    source, _ = daemon_with_account(daemon_factory, "taken")
    exported = json.loads(ctl(source, "export", "--include-private-keys").stdout)
    original = exported[0]["userHandle"]
    exported[0]["userHandle"] = base64.urlsafe_b64encode(b"someone else").decode().rstrip("=")
    path = tmp_path / "credentials.json"
    path.write_text(json.dumps(exported))
    result = passkeyctl(source.socket, "import", str(path), pin=None)
    assert result.returncode != 0 and "another account" in result.stderr, result.stderr
    assert [c["userHandle"] for c in json.loads(ctl(source, "export").stdout)] == [original], "the stored one is untouched"


@pytest.mark.parametrize("algorithm", [-8, -35, -36, -47, -48, -49, -50], ids=["EdDSA", "ES384", "ES512", "ES256K", "ML-DSA-44", "ML-DSA-65", "ML-DSA-87"])
def test_export_and_import_carry_every_algorithm_with_a_pkcs8_key(daemon_factory, tmp_path, algorithm):
    from cryptography.hazmat.primitives.serialization import load_der_private_key

    fido2_server_only = algorithm in (-35, -47)  # py_webauthn 3.0.1 knows neither P-384 nor secp256k1
    source, account = daemon_with_account(daemon_factory, f"alg{-algorithm}", algorithm=algorithm,
                                          sign_ins=0 if fido2_server_only else 1)
    path = tmp_path / "credentials.json"
    ctl(source, "export", "--include-private-keys", "--output", str(path))
    exported = json.loads(path.read_text())
    assert exported[0]["algorithm"] == algorithm
    load_der_private_key(unpadded_b64url(exported[0]["privateKey"]), password=None)  # standard PKCS#8
    target = daemon_factory("--presence", "auto", "--uv", "auto")
    ctl(target, "import", str(path))
    dev = target.device()
    try:
        account.client = make_client(dev, account.origin)
        if fido2_server_only:
            request, state = account.server.authenticate_begin(user_verification="required")
            response = account.client.get_assertion(request.public_key).get_response(0)
            account.server.authenticate_complete(state, [account.credential], response)
        else:
            account.sign_in()  # verified with the public key the RP registered on the source daemon
    finally:
        dev.close()


def test_export_says_which_keys_it_cannot_write(daemon_factory):
    source, _ = daemon_with_account(daemon_factory, "rsa", algorithm=-257)
    result = ctl(source, "export", "--include-private-keys")
    assert "privateKey" not in json.loads(result.stdout)[0]
    assert "without the private key" in result.stderr and "RSA" in result.stderr


def test_cxf_round_trip_keeps_counters_at_zero(daemon_factory, tmp_path):
    source, account = daemon_with_account(daemon_factory, "cxf", "--counter", "zero")
    path = tmp_path / "credentials.cxf.json"
    ctl(source, "export", "--format", "cxf", "--include-private-keys", "--output", str(path))
    header = json.loads(path.read_text())
    assert header["version"] == {"major": 1, "minor": 0}
    passkeys = [c for a in header["accounts"] for i in a["items"] for c in i["credentials"] if c["type"] == "passkey"]
    assert [p["rpId"] for p in passkeys] == [account.rp_id]

    target = daemon_factory("--presence", "auto", "--uv", "auto")
    ctl(target, "import", "--format", "cxf", str(path))
    dev = target.device()
    try:
        account.client = make_client(dev, account.origin)
        for _ in range(2):
            account.sign_in()
            assert account.sign_count == 0, "CXF: an imported passkey's counter stays 0"
    finally:
        dev.close()


def test_cxf_export_leaves_out_passkeys_with_a_counter(daemon_factory, tmp_path):
    source, _ = daemon_with_account(daemon_factory, "counted")
    result = ctl(source, "export", "--format", "cxf", "--include-private-keys")
    assert "Left out 1 passkey" in result.stderr
    assert json.loads(result.stdout)["accounts"][0]["items"] == []


@pytest.mark.parametrize("file_format", ["json", "cxf"])
def test_export_and_import_carry_a_large_blob(daemon_factory, tmp_path, file_format):
    counter = ["--counter", "zero"] if file_format == "cxf" else []  # CXF carries uncounted passkeys only
    source = daemon_factory("--presence", "auto", "--uv", "auto", "--allow-private-key-export", *counter)
    blob = b"passkeyd large blob " * 40  # compresses well, as CTAP 2.1 §6.10.3 expects blobs to
    dev = source.device()
    try:
        account = Account(dev, f"blob-{file_format}", large_blob=True)
        plain = Account(dev, f"plain-{file_format}")
        assert account.large_blob(write=blob)["written"] is True
    finally:
        dev.close()
    path = tmp_path / f"credentials.{file_format}"
    ctl(source, "export", "--format", file_format, "--include-private-keys", "--output", str(path))
    exported = json.loads(path.read_text())
    if file_format == "json":
        by_rp = {c["rpId"]: c for c in exported}
        assert unpadded_b64url(by_rp[account.rp_id]["largeBlob"]) == blob, "CDP's largeBlob is the blob itself"
        assert "largeBlob" not in by_rp[plain.rp_id]
    else:
        passkeys = {c["rpId"]: c for a in exported["accounts"] for i in a["items"] for c in i["credentials"]}
        stored = passkeys[account.rp_id]["fido2Extensions"]["largeBlob"]
        assert stored["uncompressedSize"] == len(blob)
        assert zlib.decompress(unpadded_b64url(stored["data"]), -15) == blob, "CXF: DEFLATE data"
        assert "fido2Extensions" not in passkeys[plain.rp_id]

    target = daemon_factory("--presence", "auto", "--uv", "auto")
    ctl(target, "import", "--format", file_format, str(path))
    dev = target.device()
    try:
        account.client = make_client(dev, account.origin)
        assert unpadded_b64url(account.large_blob(read=True)["blob"]) == blob, "the blob is readable with the imported passkey"
        account.sign_in()
    finally:
        dev.close()


def test_import_refuses_large_blobs_beyond_capacity_and_stores_nothing(daemon_factory, tmp_path):
    source, _ = daemon_with_account(daemon_factory, "full", large_blob=True)
    path = tmp_path / "credentials.json"
    ctl(source, "export", "--include-private-keys", "--output", str(path))
    exported = json.loads(path.read_text())
    exported[0]["largeBlob"] = base64.urlsafe_b64encode(os.urandom(6000)).decode().rstrip("=")  # incompressible
    path.write_text(json.dumps(exported))
    target = daemon_factory("--presence", "auto", "--uv", "auto")
    result = passkeyctl(target.socket, "import", str(path), pin=None)
    assert result.returncode != 0 and "Nothing was imported" in result.stderr, result.stderr
    assert json.loads(ctl(target, "export").stdout) == []


def test_backup_flags_per_credential(daemon, device):
    account = Account(device, "flags")
    listed = json.loads(ctl(daemon, "--json", "export", "--rp", account.rp_id).stdout)
    credential_id = listed[0]["credentialId"]
    # After `--`: a random base64url ID begins with '-' one time in 64, and would read as options.
    refused = passkeyctl(daemon.socket, "credential", "flags", "--bs", "on", "--", credential_id, pin=None)
    assert refused.returncode != 0 and "backup eligible" in refused.stderr
    ctl(daemon, "credential", "flags", "--be", "on", "--bs", "on", "--", credential_id)
    request, _ = account.server.authenticate_begin()
    data = account.client.get_assertion(request.public_key).get_response(0).response.authenticator_data
    assert data.is_backup_eligible() and data.is_backed_up()
    exported = json.loads(ctl(daemon, "export", "--rp", account.rp_id).stdout)[0]
    assert exported["backupEligibility"] is True and exported["backupState"] is True


def test_backup_flags_from_the_command_line_reach_py_webauthn(daemon_factory):
    synced = daemon_factory("--presence", "auto", "--uv", "auto", "--backup-eligible", "--backup-state")
    dev = synced.device()
    try:
        account = Account(dev, "synced")
        options, state = account.server.register_begin(
            {"id": os.urandom(16), "name": "second@example.net", "displayName": "second"}, resident_key_requirement="required")
        result = account.client.make_credential(options.public_key)
        verified = webauthn.verify_registration_response(
            credential=json.dumps(dict(result)), expected_challenge=options.public_key.challenge,
            expected_rp_id=account.rp_id, expected_origin=account.origin)
        assert verified.credential_backed_up
        assert verified.credential_device_type == "multi_device"
    finally:
        dev.close()


def test_backup_state_without_eligibility_is_refused_at_start(daemon_factory):
    with pytest.raises(RuntimeError, match="--backup-state needs --backup-eligible"):
        daemon_factory("--backup-state")


def test_x5c_attestation_verifies_against_the_keystores_root(daemon_factory):
    from webauthn.helpers.structs import AttestationFormat
    from fido2.attestation import Attestation, AttestationType
    from cryptography import x509

    vendor = daemon_factory("--presence", "auto", "--uv", "auto", "--attestation", "x5c")
    pem = ctl(vendor, "attestation-ca").stdout
    root = x509.load_pem_x509_certificate(pem.encode())
    dev = vendor.device()
    try:
        account = Account(dev, "attested")
        direct = Fido2Server({"id": account.rp_id, "name": "attested"}, attestation="direct")
        options, state = direct.register_begin(
            {"id": os.urandom(16), "name": "x5c@example.net", "displayName": "x5c"}, resident_key_requirement="required")
        result = account.client.make_credential(options.public_key)
    finally:
        dev.close()
    att = result.response.attestation_object
    assert att.fmt == "packed" and len(att.att_stmt["x5c"]) == 1
    verdict = Attestation.for_type("packed")().verify(att.att_stmt, att.auth_data, result.response.client_data.hash)
    assert verdict.attestation_type == AttestationType.BASIC
    leaf = x509.load_der_x509_certificate(att.att_stmt["x5c"][0])
    assert leaf.issuer == root.subject
    aaguid = leaf.extensions.get_extension_for_oid(x509.ObjectIdentifier("1.3.6.1.4.1.45724.1.1.4")).value.value
    assert aaguid[2:] == att.auth_data.credential_data.aaguid  # an OCTET STRING of the AAGUID (WebAuthn L3 §8.2.1)
    verified = webauthn.verify_registration_response(
        credential=json.dumps(dict(result)), expected_challenge=options.public_key.challenge,
        expected_rp_id=account.rp_id, expected_origin=account.origin,
        pem_root_certs_bytes_by_fmt={AttestationFormat.PACKED: [pem.encode()]})
    assert verified.fmt == AttestationFormat.PACKED

    # Another keystore's root is not a trust anchor for these attestations.
    other = daemon_factory("--presence", "auto", "--uv", "auto", "--attestation", "x5c")
    foreign = ctl(other, "attestation-ca").stdout
    assert foreign != pem
    with pytest.raises(Exception):
        webauthn.verify_registration_response(
            credential=json.dumps(dict(result)), expected_challenge=options.public_key.challenge,
            expected_rp_id=account.rp_id, expected_origin=account.origin,
            pem_root_certs_bytes_by_fmt={AttestationFormat.PACKED: [foreign.encode()]})

    statement = json.loads(ctl(vendor, "metadata").stdout)
    assert statement["aaguid"] == "cebed41c-3efc-4080-98c5-e3ce60214c97"
    assert statement["protocolFamily"] == "fido2" and statement["schema"] == 3
    assert statement["attestationRootCertificates"] == ["".join(pem.strip().splitlines()[1:-1])]
    assert "secp256r1_ecdsa_sha256_raw" in statement["authenticationAlgorithms"]


def test_attestation_none_sends_no_statement(daemon_factory):
    quiet = daemon_factory("--presence", "auto", "--uv", "auto", "--attestation", "none")
    dev = quiet.device()
    try:
        account = Account(dev, "noattestation")
        direct = Fido2Server({"id": account.rp_id, "name": "none"}, attestation="direct")
        options, _ = direct.register_begin({"id": os.urandom(16), "name": "n@example.net", "displayName": "n"})
        assert account.client.make_credential(options.public_key).response.attestation_object.fmt == "none"
    finally:
        dev.close()
