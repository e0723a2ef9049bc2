"""The demo's six sign-in scenarios, end to end against the real daemon."""

from __future__ import annotations

import os
import subprocess

from passkeyd_hid import REPO

PASSKEYDEMO = os.environ.get("PASSKEYDEMO_BIN", str(REPO / ".build" / "debug" / "passkeydemo"))


def test_all_six_scenarios_pass_against_the_daemon(daemon_factory):
    daemon = daemon_factory("--presence", "auto", "--uv", "auto")
    done = subprocess.run([PASSKEYDEMO, "--socket", daemon.socket], capture_output=True, timeout=120)
    out = done.stdout.decode()
    assert done.returncode == 0, out + done.stderr.decode()
    assert out.count("\n== ") == 6, out
    assert "✗" not in out and out.rstrip().endswith("all 6 scenarios passed"), out


def test_a_second_run_on_the_same_authenticator_still_passes(daemon_factory):
    """Scenarios only rely on what they set up, so a used authenticator is fine."""
    daemon = daemon_factory("--presence", "auto", "--uv", "auto")
    for _ in range(2):
        done = subprocess.run([PASSKEYDEMO, "--socket", daemon.socket, "--scenario", "passkey-only",
                               "--scenario", "autofill-hybrid"], capture_output=True, timeout=120)
        assert done.returncode == 0, done.stdout.decode() + done.stderr.decode()
