"""Runs python-fido2's own device test suite against a fresh passkeyd.

The suite ships only in the sdist, so it is fetched at test time
(`pip download --no-binary :all: fido2==<installed version>`) into .cache/.
It refuses a device with a PIN or built-in UV configured, so the daemon runs
on a new, empty data directory with the simulated fingerprint reader (`--bio`)
and nothing enrolled: built-in UV exists but is not configured until
test_bioenroll.py enrolls a finger (every sample and match read well, `--uv auto`),
and with `--attestation x5c`, so enterprise attestation can be enabled (test_config.py).

`run_device_suite.py [PROFILE]` runs it against `passkeyd --profile PROFILE` (default fido2.1;
`make test` runs fido2.1 and fido2.2, the generations python-fido2 2.2's suite is written for).

Tests the daemon cannot pass yet are deselected by device_suite_deselect.txt,
one node id per line with the feature it waits for after a `#`; that list only
shrinks. Exit status is pytest's.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tarfile
from pathlib import Path

from importlib.metadata import version as installed_version

from passkeyd_hid import HERE, Daemon

CACHE = HERE / ".cache"
DESELECT = HERE / "device_suite_deselect.txt"
SUITE_TIMEOUT = 240
# The RP ID passkeyd attests under vendor-facilitated enterprise attestation (Authenticator.Configuration).
EP_RP_ID = "enterprise.passkeyd.test"


def fetch_sdist() -> Path:
    version = installed_version("fido2")
    root = CACHE / f"fido2-{version}"
    if (root / "tests" / "device" / "conftest.py").exists():
        return root
    CACHE.mkdir(exist_ok=True)
    subprocess.run(
        [sys.executable, "-m", "pip", "download", "--quiet", "--disable-pip-version-check",
         "--no-binary", ":all:", "--no-deps", f"fido2=={version}", "-d", str(CACHE)],
        check=True,
    )
    with tarfile.open(CACHE / f"fido2-{version}.tar.gz") as tar:
        tar.extractall(CACHE, filter="data")
    if not (root / "tests" / "device" / "conftest.py").exists():
        raise SystemExit(f"fido2 {version} sdist has no tests/device suite")
    return root


def deselected() -> list[tuple[str, str]]:
    entries = []
    for line in DESELECT.read_text().splitlines():
        node, _, feature = line.partition("#")
        node, feature = node.strip(), feature.strip()
        if not node:
            continue
        if not feature:
            raise SystemExit(f"{DESELECT.name}: '{node}' does not name the feature it waits for")
        entries.append((node, feature))
    return entries


def main(profile: str) -> int:
    root = fetch_sdist()
    entries = deselected()
    daemon = Daemon("--profile", profile, "--presence", "auto", "--uv", "auto", "--bio", "--attestation", "x5c").start()
    env = dict(os.environ)
    env["PASSKEYD_DEVSUITE_SOCKET"] = daemon.socket
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(HERE), env.get("PYTHONPATH")]))
    cmd = [sys.executable, "-m", "pytest", "tests/device", "-p", "passkeyd_devsuite",
           "-q", "-rfEs", "-p", "no:cacheprovider", "--ep-rp-id", EP_RP_ID]
    for node, _ in entries:
        cmd += ["--deselect", node]
    try:
        proc = subprocess.run(cmd, cwd=root, env=env, capture_output=True, text=True, timeout=SUITE_TIMEOUT)
    except subprocess.TimeoutExpired as e:
        sys.stdout.write((e.stdout or b"").decode() if isinstance(e.stdout, bytes) else (e.stdout or ""))
        print(f"device suite: timed out after {SUITE_TIMEOUT}s\n--- passkeyd log ---\n{daemon.log()}")
        daemon.kill()
        daemon.remove()
        return 1
    finally:
        if daemon.alive():
            code = daemon.stop()
            if code != 0:
                print(f"passkeyd exited {code} on SIGTERM")
    sys.stdout.write(proc.stdout)
    sys.stderr.write(proc.stderr)
    if proc.returncode != 0:
        print(f"--- passkeyd log ---\n{daemon.log()}")
    daemon.remove()
    summary = proc.stdout.strip().splitlines()[-1] if proc.stdout.strip() else ""
    counts = {word: int(m.group(1)) if (m := re.search(rf"(\d+) {word}", summary)) else 0
              for word in ("passed", "failed", "skipped", "deselected")}
    print(f"device suite note ({profile}): {counts['passed']} passed / {counts['failed']} failed / {counts['skipped']} skipped / "
          f"{counts['deselected']} deselected ({len(entries)} entries) "
          f"(python-fido2 {installed_version('fido2')} tests/device)")
    return proc.returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "fido2.1"))
