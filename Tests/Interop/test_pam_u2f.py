"""pam_u2f (Debian libpam-u2f) on the real daemon: pamu2fcfg enrolls and pamtester
authenticates through a PAM service the test writes, both under `passkeyctl exec`."""

from __future__ import annotations

import os
import pwd
import subprocess
import uuid

import pytest

from test_libfido2_tools import ok, under_exec

pytestmark = pytest.mark.skipif(os.getuid() != 0, reason="the PAM service file goes in /etc/pam.d, which needs root")

ORIGIN = "pam://passkeyd-test"
USER = pwd.getpwuid(os.getuid()).pw_name


@pytest.fixture(scope="module")
def enrolled(daemon_factory, tmp_path_factory):
    """A daemon with one pam_u2f credential for USER, its authfile and a PAM service using it."""
    # --attestation x5c: pamu2fcfg 1.1.0 checks the attestation with fido_cred_verify, which
    # accepts only a statement with a certificate (self attestation is refused: FIDO_ERR_INVALID_ARGUMENT).
    d = daemon_factory("--presence", "auto", "--uv", "auto", "--attestation", "x5c")
    line = ok(under_exec(d.socket, "pamu2fcfg", "-u", USER, "-o", ORIGIN, "-i", ORIGIN), d).strip()
    name, credential = line.split(":", 1)
    assert name == USER
    handle, public_key, kind, options = credential.split(",")
    assert kind == "es256" and options == "+presence" and handle and public_key

    folder = tmp_path_factory.mktemp("pam-u2f")
    authfile = folder / "u2f_keys"
    authfile.write_text(line + "\n")
    service = f"passkeyd-test-{uuid.uuid4().hex[:8]}"
    path = f"/etc/pam.d/{service}"
    with open(path, "x") as f:
        f.write(f"auth required pam_u2f.so authfile={authfile} cue origin={ORIGIN} appid={ORIGIN}\n")
    try:
        yield d, service
    finally:
        os.unlink(path)


def authenticate(daemon, service: str):
    return under_exec(daemon.socket, "pamtester", service, USER, "authenticate")


def test_pamtester_authenticates_with_the_enrolled_credential(enrolled):
    d, service = enrolled
    done = authenticate(d, service)
    assert done.returncode == 0, f"{done.stdout}\n{done.stderr}\n{d.log()}"
    assert "Please touch the device." in done.stdout + done.stderr
    assert "pamtester: successfully authenticated" in done.stdout + done.stderr


def test_a_denied_touch_fails_the_authentication(enrolled, daemon_factory):
    d, service = enrolled
    # The same keystore (the credential is non-resident: its key handle is sealed with the
    # keystore's key), now with every touch refused; the approving daemon comes back after.
    assert d.stop() == 0
    try:
        denying = daemon_factory("--presence", "deny", "--uv", "auto", "--attestation", "x5c", data_dir=d.data_dir)
        denied = authenticate(denying, service)
        assert denying.stop() == 0
    finally:
        d.start()
    out = denied.stdout + denied.stderr
    assert denied.returncode != 0
    assert "Please touch the device." in out, "pam_u2f found the device and asked for the touch"
    assert "Authentication failure" in out
    assert "successfully authenticated" not in out


def test_without_the_preload_pam_u2f_finds_no_device(enrolled):
    _, service = enrolled
    alone = subprocess.run(["pamtester", service, USER, "authenticate"], capture_output=True, text=True, timeout=120)
    assert alone.returncode != 0
    assert "Please touch the device." not in alone.stdout + alone.stderr
