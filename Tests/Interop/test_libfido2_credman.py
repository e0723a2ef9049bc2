"""libfido2 (Debian libfido2-dev) PIN and credential management against the real daemon:
fido_dev_set_pin, PIN-verified resident registrations, fido_credman_get_dev_metadata /
_get_dev_rp / _get_dev_rk / _del_dev_rk / _set_dev_rk, compared with python-fido2's
CredentialManagement and `passkeyctl list --json`."""

from __future__ import annotations

import base64
import json
import os
import subprocess

import pytest
from fido2.ctap2 import Ctap2
from fido2.ctap2.pin import ClientPin
from fido2.utils import sha256

from passkeyd_hid import HERE
from passkeyd_pin import PIN, RESULT, b64url, credman, fido2_view, passkeyctl_has, passkeyctl_view

PROGRAM = os.environ.get("LIBFIDO2_CREDMAN", str(HERE / "build" / "libfido2_credman"))

#: (rp id, user name, display name, alg)
ACCOUNTS = [
    ("one.libfido2.example", "ann", "Ann One", "es256"),
    ("one.libfido2.example", "ben", "Ben One", "eddsa"),
    ("two.libfido2.example", "cat", "Cat Two", "es256"),
]


def run(socket_path: str, *args: str, pin: str | None = PIN, env: dict | None = None) -> subprocess.CompletedProcess:
    if not os.access(PROGRAM, os.X_OK):
        pytest.fail(f"{PROGRAM} not built (make -C Tests/Interop program)")
    e = {k: v for k, v in os.environ.items() if k != "LIBFIDO2_PIN"}
    if pin is not None:
        e["LIBFIDO2_PIN"] = pin
    e.update(env or {})
    return subprocess.run([PROGRAM, socket_path, *args], capture_output=True, text=True, timeout=120, env=e)


def ok(result: subprocess.CompletedProcess, daemon) -> dict:
    assert result.returncode == 0, f"{result.stdout}\n{result.stderr}\n--- passkeyd log ---\n{daemon.log()}"
    return json.loads(result.stdout)


def error_of(result: subprocess.CompletedProcess) -> dict:
    assert result.returncode == 1, f"expected a libfido2 error:\n{result.stdout}\n{result.stderr}"
    return json.loads(result.stderr.strip().splitlines()[-1])


def _hex_of(b64: str) -> str:
    return base64.urlsafe_b64decode(b64 + "=" * (-len(b64) % 4)).hex()


def libfido2_view(listing: dict) -> dict[str, dict[str, dict]]:
    """`libfido2_credman list` in passkeyd_pin.fido2_view's shape (hex ids to base64url)."""
    view: dict[str, dict[str, dict]] = {}
    for rp in listing["relyingParties"]:
        assert bytes.fromhex(rp["rpIdHash"]) == sha256(rp["id"].encode())
        creds = view.setdefault(rp["id"], {})
        for c in rp["credentials"]:
            creds[b64url(bytes.fromhex(c["credentialId"]))] = {
                "userHandle": b64url(bytes.fromhex(c["userId"])),
                "userName": c["userName"],
                "displayName": c["displayName"],
            }
    return view


@pytest.fixture
def daemon(daemon_factory):
    return daemon_factory("--presence", "auto", "--uv", "off")


def test_libfido2_credential_management_agrees_with_python_fido2(daemon):
    # fido_dev_set_pin with no old PIN, then the retries counter (§6.5.5.5, §6.5.5.2).
    assert ok(run(daemon.socket, "setpin"), daemon) == {"retries": 8}

    registered = {}
    for rp_id, user, display, alg in ACCOUNTS:
        out = ok(run(daemon.socket, "register", rp_id, user, display, alg), daemon)
        assert out["flags"] & 0x05 == 0x05, "UP and UV (through the PIN) must be set"
        registered[b64url(bytes.fromhex(out["credentialId"]))] = (rp_id, user, display, out["userId"])

    expected = {}
    for cid, (rp_id, user, display, user_id) in registered.items():
        expected.setdefault(rp_id, {})[cid] = {
            "userHandle": b64url(bytes.fromhex(user_id)), "userName": user, "displayName": display,
        }

    listing = ok(run(daemon.socket, "list"), daemon)
    assert listing["existing"] == len(ACCOUNTS)
    assert libfido2_view(listing) == expected
    algs = {c["userName"]: c["alg"] for rp in listing["relyingParties"] for c in rp["credentials"]}
    assert algs == {"ann": -7, "ben": -8, "cat": -7}

    dev = daemon.device()
    try:
        cm = credman(dev)
        metadata = cm.get_metadata()
        assert (metadata[RESULT.EXISTING_CRED_COUNT], metadata[RESULT.MAX_REMAINING_COUNT]) == (
            listing["existing"], listing["remaining"])
        assert fido2_view(cm) == expected
        if passkeyctl_has("list"):
            assert passkeyctl_view(daemon.socket) == expected

        # fido_credman_del_dev_rk on ben: python-fido2 and passkeyctl stop seeing him.
        ben = next(cid for cid, v in registered.items() if v[1] == "ben")
        ok(run(daemon.socket, "delete", _hex_of(ben)), daemon)
        del expected["one.libfido2.example"][ben]
        listing = ok(run(daemon.socket, "list"), daemon)
        assert listing["existing"] == len(ACCOUNTS) - 1
        assert libfido2_view(listing) == expected
        cm = credman(dev)
        assert fido2_view(cm) == expected
        assert cm.get_metadata()[RESULT.EXISTING_CRED_COUNT] == len(ACCOUNTS) - 1
        if passkeyctl_has("list"):
            assert passkeyctl_view(daemon.socket) == expected

        # python-fido2 deletes cat; libfido2 no longer lists her RP at all.
        cat = next(cid for cid, v in registered.items() if v[1] == "cat")
        credman(dev).delete_cred({"type": "public-key", "id": bytes.fromhex(_hex_of(cat))})
        del expected["two.libfido2.example"]
        assert libfido2_view(ok(run(daemon.socket, "list"), daemon)) == expected

        # fido_credman_set_dev_rk renames ann; python-fido2 sees the new names.
        ann = next(cid for cid, v in registered.items() if v[1] == "ann")
        ok(run(daemon.socket, "rename", _hex_of(ann), registered[ann][3], "ann@one", "Ann Renamed"), daemon)
        expected["one.libfido2.example"][ann].update(userName="ann@one", displayName="Ann Renamed")
        assert fido2_view(credman(dev)) == expected
        assert libfido2_view(ok(run(daemon.socket, "list"), daemon)) == expected
    finally:
        dev.close()


def test_libfido2_pin_change_and_wrong_pin(daemon):
    # No PIN yet: getPINRetries answers CTAP2_ERR_PIN_NOT_SET (0x35), as hardware keys do.
    assert error_of(run(daemon.socket, "retries", pin=None))["code"] == 0x35
    ok(run(daemon.socket, "setpin"), daemon)
    # fido_dev_set_pin with an old PIN is changePIN (§6.5.5.6).
    assert ok(run(daemon.socket, "changepin", "NEW_PIN", env={"NEW_PIN": "271828"}), daemon) == {"retries": 8}
    # The old PIN now fails for libfido2's credential management: FIDO_ERR_PIN_INVALID (0x31).
    err = error_of(run(daemon.socket, "list", pin=PIN))
    assert err["code"] == 0x31, err
    assert ok(run(daemon.socket, "retries"), daemon) == {"retries": 7}
    # And python-fido2 agrees the PIN changed.
    dev = daemon.device()
    try:
        assert ClientPin(Ctap2(dev)).get_pin_token("271828", ClientPin.PERMISSION.CREDENTIAL_MGMT)
        assert ClientPin(Ctap2(dev)).get_pin_retries()[0] == 8
    finally:
        dev.close()
    listing = ok(run(daemon.socket, "list", pin="271828"), daemon)
    assert listing == {"existing": 0, "remaining": listing["remaining"], "relyingParties": []}
    assert listing["remaining"] > 0



def test_libfido2_manages_a_review_draft_key(daemon_factory):
    """`--profile fido2.1-pre` (docs/profiles.md): libfido2 takes `credentialMgmtPreview` for
    credential management, so it lists and deletes through the prototype 0x41 with
    getPinToken's token; the prototype has no updateUserInformation (2.1 §6.13), so
    fido_credman_set_dev_rk meets CTAP2_ERR_INVALID_SUBCOMMAND (0x3E)."""
    d = daemon_factory("--profile", "fido2.1-pre", "--presence", "auto", "--uv", "off")
    ok(run(d.socket, "setpin"), d)
    made = [ok(run(d.socket, "register", "pre.example.org", user, user.title(), "es256"), d) for user in ("ann", "bob")]
    listing = ok(run(d.socket, "list"), d)
    assert listing["existing"] == 2
    [rp] = listing["relyingParties"]
    assert {c["credentialId"] for c in rp["credentials"]} == {m["credentialId"] for m in made}
    ok(run(d.socket, "delete", made[0]["credentialId"]), d)
    assert [c["credentialId"] for c in ok(run(d.socket, "list"), d)["relyingParties"][0]["credentials"]] == [made[1]["credentialId"]]
    err = error_of(run(d.socket, "rename", made[1]["credentialId"], made[1]["userId"], "bob@pre", "Bob Renamed"))
    assert err["code"] == 0x3E, err
