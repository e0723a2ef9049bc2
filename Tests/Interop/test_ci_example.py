"""docs/ci-example.yml does what it says: every `run:` step, in order, in a shell as the
Actions runner would start it (the repository as working folder, $GITHUB_PATH honoured
between steps, $RUNNER_TEMP), on a throw-away HOME. The `uses:` steps are the runner's
(checkout, Swift) and are what this machine already has. CONFIG=debug installs the build
`make test` already made."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import textwrap

from passkeyd_hid import REPO

WORKFLOW = REPO / "docs" / "ci-example.yml"


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


def test_every_run_step_of_the_ci_example_passes(tmp_path):
    home = tmp_path / "home"
    runner_temp = tmp_path / "runner"
    runtime = tmp_path / "run"
    for d in (home, runner_temp):
        d.mkdir()
    runtime.mkdir(mode=0o700)
    github_path = tmp_path / "github_path"
    github_path.touch()
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("PASSKEYD_", "PASSKEYCTL_", "XDG_", "VIRTUAL_ENV")) and k not in ("MAKEFLAGS", "MAKELEVEL", "MFLAGS")}
    env.update(HOME=str(home), RUNNER_TEMP=str(runner_temp), GITHUB_PATH=str(github_path),
               XDG_RUNTIME_DIR=str(runtime), CONFIG="debug", CI="true")
    base_path = env["PATH"]
    try:
        for name, script in run_steps(WORKFLOW.read_text()):
            # The runner prepends what earlier steps added to $GITHUB_PATH.
            added = [p for p in github_path.read_text().splitlines() if p]
            env["PATH"] = ":".join(list(reversed(added)) + [base_path])
            done = subprocess.run(["bash", "-e", "-o", "pipefail", "-c", script], cwd=REPO, env=env,
                                  capture_output=True, text=True, timeout=1200)
            assert done.returncode == 0, f"step {name!r} failed:\n{done.stdout[-4000:]}\n{done.stderr[-4000:]}"
            if name == "Run a python-fido2 test":
                assert "1 passed" in done.stdout, done.stdout
    finally:
        status = subprocess.run([str(home / ".local" / "bin" / "passkeyctl"), "status", "--json"], env=env,
                                capture_output=True, text=True)
        if status.returncode == 0:
            os.kill(json.loads(status.stdout)["pid"], signal.SIGTERM)
