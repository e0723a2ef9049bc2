"""What a new user meets first on the command line: options that are not WebAuthn JSON answered
in WebAuthn's words, a quiet CLI unless asked, and the exit statuses docs/passkeyctl.md lists."""

from __future__ import annotations

import json
import os
import subprocess

from webauthn import generate_authentication_options, generate_registration_options, options_to_json

from conftest import ORIGIN, RP_ID
from passkeyd_hid import REPO

PASSKEYCTL = os.environ.get("PASSKEYCTL_BIN", str(REPO / ".build" / "debug" / "passkeyctl"))


def webauthn(socket: str, ceremony: str, stdin: str, *args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [PASSKEYCTL, "webauthn", ceremony, "--socket", socket, "--origin", ORIGIN, *args],
        input=stdin, capture_output=True, text=True, timeout=60, env={**os.environ, **(env or {})})


def registration_options() -> dict:
    return json.loads(options_to_json(generate_registration_options(rp_id=RP_ID, rp_name="Example", user_name="ann")))


def test_malformed_options_name_the_member_and_never_a_debug_dump(daemon):
    cases = {
        "": "No options on standard input",
        "   \n": "No options on standard input",
        "{": "The PublicKeyCredentialCreationOptionsJSON is not valid JSON.",
        json.dumps({k: v for k, v in registration_options().items() if k != "rp"}):
            "PublicKeyCredentialCreationOptionsJSON: member 'rp' is missing.",
        json.dumps({**registration_options(), "user": {**registration_options()["user"], "id": 5}}):
            "PublicKeyCredentialCreationOptionsJSON: member 'user.id' must be a string.",
        json.dumps({**registration_options(), "challenge": "not*base64url"}):
            "PublicKeyCredentialCreationOptionsJSON: member 'challenge' is not base64url.",
        json.dumps({**registration_options(), "pubKeyCredParams": [{"type": "public-key", "alg": "ES256"}]}):
            "PublicKeyCredentialCreationOptionsJSON: member 'pubKeyCredParams[0].alg' must be a number.",
    }
    for stdin, sentence in cases.items():
        done = webauthn(daemon.socket, "create", stdin)
        assert done.returncode == 1, (stdin, done.stderr)
        assert sentence in done.stderr, (stdin, done.stderr)
        for leak in ("DecodingError", "CodingKeys", "Debug description", "Usage:"):
            assert leak not in done.stderr, (stdin, done.stderr)
        as_json = webauthn(daemon.socket, "create", stdin, "--json")
        error = json.loads(as_json.stdout)["error"]
        assert as_json.returncode == 1 and error["kind"] == "usage" and sentence in error["message"]
        assert "Usage:" not in error["message"]


def test_a_ceremony_is_quiet_unless_asked(daemon):
    options = options_to_json(generate_registration_options(rp_id=RP_ID, rp_name="Example", user_name="quiet"))
    quiet = webauthn(daemon.socket, "create", options)
    assert quiet.returncode == 0, quiet.stderr
    assert quiet.stderr == "", "a CLI writes nothing on stderr when all went well"
    verbose = webauthn(daemon.socket, "create", options, "--verbose")
    assert verbose.returncode == 0 and "passkey created" in verbose.stderr
    silenced = webauthn(daemon.socket, "create", options, "--verbose", env={"PASSKEYD_LOG_LEVEL": "error"})
    assert silenced.returncode == 0
    by_level = webauthn(daemon.socket, "create", options, env={"PASSKEYD_LOG_LEVEL": "info"})
    assert "passkey created" in by_level.stderr, "the documented level variable works for passkeyctl too"


def test_a_dropped_connection_is_exit_2_as_the_table_says(daemon):
    """docs/passkeyctl.md: 2 is no daemon, or one that dropped the connection (`daemon-gone`)."""
    options = options_to_json(generate_registration_options(rp_id=RP_ID, rp_name="Example", user_name="dropped"))
    arm = subprocess.run([PASSKEYCTL, "fault", "set", "drop", "--socket", daemon.socket], capture_output=True, text=True, timeout=30)
    assert arm.returncode == 0, arm.stderr
    done = webauthn(daemon.socket, "create", options, "--json")
    assert done.returncode == 2, done.stdout
    assert json.loads(done.stdout)["error"]["kind"] == "daemon-gone"
    after = webauthn(daemon.socket, "get", options_to_json(generate_authentication_options(rp_id=RP_ID)))
    assert after.returncode in (0, 6), "the daemon keeps serving after the drop"
