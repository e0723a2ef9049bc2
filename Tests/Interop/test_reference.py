"""The reference pages are complete: every subcommand and flag the parsers know appears in
docs/passkeyctl.md and docs/passkeydemo.md (read from the executables' own
`--experimental-dump-help`, so a new flag without a line in the docs fails here)."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent.parent
BUILD = REPO / ".build" / "debug"
# Flags every swift-argument-parser command has; the pages describe them once, not per command.
IMPLIED = {"--help", "--version", "-h"}


def command_tree(binary: str) -> dict:
    out = subprocess.run([binary, "--experimental-dump-help"], capture_output=True, text=True, timeout=60, check=True)
    return json.loads(out.stdout)["command"]


def walk(command: dict, path: tuple[str, ...] = ()):
    """(path, long flags) for each command, the root included."""
    flags = set()
    for argument in command.get("arguments") or []:
        for name in argument.get("names") or []:
            if name["kind"] == "long":
                flags.add("--" + name["name"])
    yield path, flags - IMPLIED
    for sub in command.get("subcommands") or []:
        if sub["commandName"] != "help":
            yield from walk(sub, path + (sub["commandName"],))


def missing_from(page: Path, binary: str) -> list[str]:
    text = page.read_text()
    lines = text.splitlines()
    missing = []
    for path, flags in walk(command_tree(binary)):
        if path:
            # A command is documented where a line names it in code: `pin set`, or its parent's
            # row naming it among siblings (`bio enroll … | list | rename …`).
            head = "`" + " ".join(path[:-1] + (path[-1],))
            named = any(head in line for line in lines) or (
                len(path) > 1 and any(("`" + " ".join(path[:-1])) in line and path[-1] in line for line in lines))
            if not named:
                missing.append("command " + " ".join(path))
        for flag in sorted(flags):
            if flag not in text:
                missing.append(f"flag {flag} of {' '.join(path) or 'the top level'}")
    return missing


@pytest.mark.parametrize("program", ["passkeyctl", "passkeydemo"])
def test_every_subcommand_and_flag_is_in_the_reference(program):
    binary = os.environ.get(f"{program.upper()}_BIN", str(BUILD / program))
    missing = missing_from(REPO / "docs" / f"{program}.md", binary)
    assert not missing, f"docs/{program}.md leaves out: " + ", ".join(missing)


def test_the_check_finds_an_undocumented_flag(tmp_path):
    """The check itself fails on a page that leaves something out."""
    page = tmp_path / "passkeyctl.md"
    text = (REPO / "docs" / "passkeyctl.md").read_text()
    page.write_text(text.replace("--include-private-keys", "--include-keys"))
    binary = os.environ.get("PASSKEYCTL_BIN", str(BUILD / "passkeyctl"))
    assert "flag --include-private-keys of export" in missing_from(page, binary)
