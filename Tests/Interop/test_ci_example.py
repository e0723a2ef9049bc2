"""docs/ci-example.yml does what it says: every `run:` step, in order, as the Actions runner
would run it in the job's `container: debian:12` — here a clean Debian 12 root
(scripts/debian-root.sh, an overlay per run) with the .deb from `make dist` in the working folder
as the checkout would hold it; the job's `env:`, $RUNNER_TEMP and $GITHUB_PATH honoured between
steps. The `uses:` step (checkout) is the runner's. The runner's pip reaches PyPI; here pip takes
the same wheels from the root's local folder (PIP_FIND_LINKS), the one difference."""

from __future__ import annotations

import json
import os
import re
import signal
import textwrap

import pytest

from debian_root import DEB_NAME, USER_ENV, Root, built_packages, clean_debian_root
from passkeyd_hid import REPO

WORKFLOW = REPO / "docs" / "ci-example.yml"
pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="mounting and chroot need root (CI runs as root)")


def run_steps(text: str) -> list[tuple[str, str]]:
    """(name, script) of every step with `run:`; a block scalar (`run: |`) is every following
    line indented deeper than the `run:` key, dedented."""
    steps: list[tuple[str, str]] = []
    lines = text.splitlines()
    name = ""
    i = 0
    while i < len(lines):
        if m := re.match(r"\s*-?\s*name: (.*)", lines[i]):
            name = m.group(1)
        m = re.match(r"(\s*)-?\s*run: (.*)", lines[i])
        i += 1
        if not m:
            continue
        if m.group(2).strip() != "|":
            steps.append((name, m.group(2) + "\n"))
            continue
        key_indent = len(m.group(1))
        body = []
        while i < len(lines) and (not lines[i].strip() or len(lines[i]) - len(lines[i].lstrip()) > key_indent):
            body.append(lines[i])
            i += 1
        steps.append((name, textwrap.dedent("\n".join(body)).strip() + "\n"))
    return steps


def test_the_workflow_has_the_steps_it_promises():
    names = [n for n, _ in run_steps(WORKFLOW.read_text())]
    assert names == ["Install passkeyd", "Start passkeyd", "Run a python-fido2 test", "Daemon log"]


def job_env(text: str) -> dict[str, str]:
    """The job's `env:` block (plain `KEY: value` lines)."""
    env, inside = {}, False
    for line in text.splitlines():
        if re.match(r"\s{4}env:\s*$", line):
            inside = True
            continue
        if inside:
            if m := re.match(r"\s{6}([A-Z_]+): (.*)", line):
                env[m.group(1)] = m.group(2).strip()
            elif line.strip() and not line.strip().startswith("#"):
                inside = False
    return env


def test_the_job_runs_in_the_debian_the_package_is_built_for():
    text = WORKFLOW.read_text()
    assert "    container: debian:12\n" in text
    assert job_env(text) == {"XDG_RUNTIME_DIR": "/tmp/runtime"}


def test_every_run_step_of_the_ci_example_passes(tmp_path):
    deb, _ = built_packages()
    root = Root(clean_debian_root(), tmp_path)
    try:
        checkout = root.path / "checkout"
        checkout.mkdir()
        root.put(deb, f"/checkout/{DEB_NAME}")
        (root.path / "runner").mkdir()
        github_path = root.path / "github_path"
        github_path.touch()
        text = WORKFLOW.read_text()
        env = {**job_env(text), "RUNNER_TEMP": "/runner", "GITHUB_PATH": "/github_path", "CI": "true",
               "DEBIAN_FRONTEND": "noninteractive", "PIP_NO_INDEX": "1", "PIP_FIND_LINKS": "/var/cache/passkeyd-test/wheels"}
        for name, script in run_steps(text):
            # The runner prepends what earlier steps added to $GITHUB_PATH.
            added = [p for p in github_path.read_text().splitlines() if p]
            path = ":".join(list(reversed(added)) + [USER_ENV["PATH"]])
            done = root.run("bash", "-e", "-o", "pipefail", "-c", f"cd /checkout && {script}", timeout=1200,
                            check=False, PATH=path, **env)
            assert done.returncode == 0, f"step {name!r} failed:\n{done.stdout[-4000:]}\n{done.stderr[-4000:]}"
            if name == "Run a python-fido2 test":
                assert "1 passed" in done.stdout, done.stdout
    finally:
        status = root.run("passkeyctl", "status", "--json", check=False, XDG_RUNTIME_DIR="/tmp/runtime")
        if status.returncode == 0:
            os.kill(json.loads(status.stdout)["pid"], signal.SIGTERM)
        root.close()
