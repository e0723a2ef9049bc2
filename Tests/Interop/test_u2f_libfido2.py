"""libfido2's CTAP1/U2F path (fido_dev_force_u2f) against the real daemon."""

from __future__ import annotations

import os
import subprocess

import pytest

from passkeyd_hid import HERE

PROGRAM = os.environ.get("LIBFIDO2_U2F", str(HERE / "build" / "libfido2_u2f"))


@pytest.mark.parametrize("profile", ["fido2.1", "u2f"])
def test_libfido2_forced_u2f_registers_and_authenticates(daemon_factory, profile):
    if not os.access(PROGRAM, os.X_OK):
        pytest.fail(f"{PROGRAM} not built (make -C Tests/Interop build/libfido2_u2f)")
    d = daemon_factory("--profile", profile, "--presence", "auto", "--uv", "off")
    result = subprocess.run([PROGRAM, d.socket], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, f"{result.stdout}\n{result.stderr}\n--- passkeyd log ---\n{d.log()}"
    assert "fido_cred_verify passed" in result.stdout
    assert "fido_assert_verify passed" in result.stdout
