"""A 2.1-PRE-era host (python-fido2 0.9, unmodified, in its own venv) manages resident
credentials with a PIN on `--profile fido2.1-pre` through the prototype command 0x41 and
getPinToken, and meets the review draft's answers where CTAP 2.1 changed them; on the
default profile the same host takes 2.1's path (0x0A, a token with permissions) and gets
2.1's answers (docs/profiles.md)."""

from __future__ import annotations

import json
import os
import subprocess

import pytest

from passkeyd_hid import HERE, REPO

OLD_PYTHON = HERE / ".venv-fido2-09" / "bin" / "python"
HOST = HERE / "fido2_09_host.py"
CTAP2_ERR_INVALID_SUBCOMMAND = 0x3E
CTAP2_ERR_PIN_AUTH_INVALID = 0x33
CREDENTIAL_MANAGEMENT, CREDENTIAL_MANAGEMENT_PREVIEW = 0x0A, 0x41
GET_PIN_TOKEN, GET_TOKEN_WITH_PERMISSIONS = 0x05, 0x09


def run_host(socket_path: str) -> dict:
    assert OLD_PYTHON.exists(), "run `make deps`: it creates Tests/Interop/.venv-fido2-09"
    env = {**os.environ, "PYTHONPATH": str(REPO / "integrations" / "python")}
    proc = subprocess.run([str(OLD_PYTHON), str(HOST), socket_path], capture_output=True, text=True, timeout=180, env=env)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


@pytest.mark.parametrize("profile", ["fido2.1-pre", "fido2.1"])
def test_a_2_1_pre_era_host_manages_resident_credentials(daemon_factory, profile):
    d = daemon_factory("--profile", profile, "--presence", "auto")
    report = run_host(d.socket)
    preview = profile == "fido2.1-pre"
    assert report["fido2"].startswith("0.9.")

    assert ("FIDO_2_1_PRE" in report["versions"]) == preview
    assert report["pin_protocol"] == (1 if preview else 2)
    # What went out: the prototype command and getPinToken, or 2.1's command and permissions.
    cm = CREDENTIAL_MANAGEMENT_PREVIEW if preview else CREDENTIAL_MANAGEMENT
    assert cm in report["commands"]
    assert ({CREDENTIAL_MANAGEMENT, CREDENTIAL_MANAGEMENT_PREVIEW} - {cm}).isdisjoint(report["commands"])
    token_subcommand = GET_PIN_TOKEN if preview else GET_TOKEN_WITH_PERMISSIONS
    assert token_subcommand in report["pin_subcommands"]
    assert ({GET_PIN_TOKEN, GET_TOKEN_WITH_PERMISSIONS} - {token_subcommand}).isdisjoint(report["pin_subcommands"])

    # Listed, enumerated and deleted alike.
    assert report["existing"] == 4
    assert report["rps"] == ["older.example.org", "pre.example.org"]
    assert report["credentials"] == 2 and report["enumerated_ids_were_made"]
    assert report["after_delete"] == 1 and report["deleted_gone"]

    # Where 2.1 changed the answer: the review draft's pinToken serves until the power cycle
    # (2.0 §5.5.7), 2.1's is spent once presence was collected (2.1 §6.1.2 step 14); the
    # prototype 0x41 has no updateUserInformation (2.1 §6.13), 2.1 §6.8.7 does.
    assert report["token_reused"] == (0 if preview else CTAP2_ERR_PIN_AUTH_INVALID)
    assert report["update_user"] == (CTAP2_ERR_INVALID_SUBCOMMAND if preview else 0)
