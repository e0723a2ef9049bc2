"""libfido2 (Debian libfido2-dev) against the real daemon, through its own I/O hooks."""

from __future__ import annotations

import os
import subprocess

import pytest

from passkeyd_hid import HERE

PROGRAM = os.environ.get("LIBFIDO2_INTEROP", str(HERE / "build" / "libfido2_interop"))


def run(socket_path: str, *flags: str) -> subprocess.CompletedProcess:
    if not os.access(PROGRAM, os.X_OK):
        pytest.fail(f"{PROGRAM} not built (make -C Tests/Interop build/libfido2_interop)")
    return subprocess.run([PROGRAM, socket_path, *flags], capture_output=True, text=True, timeout=120)


# Every CTAP2 generation (docs/profiles.md): libfido2 registers and signs on each alike.
CTAP2_PROFILES = ["fido2.0", "fido2.1-pre", "fido2.1", "fido2.2"]


@pytest.mark.parametrize("profile", CTAP2_PROFILES)
def test_libfido2_with_built_in_uv(daemon_factory, profile):
    d = daemon_factory("--profile", profile, "--uv", "auto")  # built-in UV configured
    result = run(d.socket, "--uv")
    assert result.returncode == 0, f"{result.stdout}\n{result.stderr}\n--- passkeyd log ---\n{d.log()}"
    assert result.stdout.count("verify_self passed") == 2
    assert result.stdout.count("fido_assert_verify passed") == 2


@pytest.mark.parametrize("profile", CTAP2_PROFILES)
def test_libfido2_without_uv(daemon_factory, profile):
    d = daemon_factory("--profile", profile, "--uv", "off")
    result = run(d.socket)
    assert result.returncode == 0, f"{result.stdout}\n{result.stderr}\n--- passkeyd log ---\n{d.log()}"
    assert result.stdout.count("verify_self passed") == 2
    assert result.stdout.count("fido_assert_verify passed") == 2
