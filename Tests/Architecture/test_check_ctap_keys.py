"""scripts/check-ctap-keys holds each CTAP structure to one statement of its keys: it passes on
the tree as it is and fails, naming the structure and the key, on each way a second copy creeps in."""
import os
import shutil
import subprocess
import sys

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
CHECK = os.path.join(ROOT, "scripts", "check-ctap-keys")


@pytest.fixture
def tree(tmp_path):
    shutil.copytree(os.path.join(ROOT, "Sources", "CTAP"), tmp_path / "Sources" / "CTAP")
    return tmp_path


def check(root):
    return subprocess.run([sys.executable, CHECK, "--root", str(root)], capture_output=True, text=True)


def edit(tree, relative, old, new):
    path = tree / "Sources" / "CTAP" / relative
    text = path.read_text()
    assert old in text, f"{relative} no longer has {old!r}"
    path.write_text(text.replace(old, new, 1))


def test_the_tree_as_it_is_passes(tree):
    result = check(tree)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout == ""


@pytest.mark.parametrize("file, old, new, problem", [
    # A reader that spells an integer key instead of naming it in the key table.
    ("MakeCredentialResponse.swift", "map.required(Key.format,", "map.required(1,",
     "MakeCredentialResponse: key 1 is written 2 times"),
    # A writer that does.
    ("MakeCredentialResponse.swift", "(.format, .textString(attestation.statement.format)),",
     "(1, .textString(attestation.statement.format)),", "MakeCredentialResponse: key 1 is written 2 times"),
    # A member name spelled beside the synthesized keys of a `@CTAPMap` structure.
    ("RequestOptions.swift", "public var isEmpty: Bool {",
     'func planted(_ map: CBORMap) throws(CTAPStatus) -> Bool? { try map.optional("uv", CBORRead.bool) }\n'
     "    public var isEmpty: Bool {", 'RequestOptions: key "uv" is written 2 times'),
    # A hand-coded map whose reader spells what its key table says.
    ("TestControls/FaultRule.swift", "map.optional(Key.rp,", 'map.optional("rp",', 'FaultRule: key "rp" is written 2 times'),
    # A direct writer beside the one `@CTAPMap` derives, spelling a key.
    ("GetAssertionResponse.swift", "    public var largeBlobKey: [UInt8]?\n",
     "    public var largeBlobKey: [UInt8]?\n    func planted(_ writer: inout CBORWriter) { writer.unsigned(3) }\n",
     "GetAssertionResponse: key 3 is written 2 times"),
])
def test_a_key_written_a_second_time_fails(tree, file, old, new, problem):
    edit(tree, file, old, new)
    result = check(tree)
    assert result.returncode == 1
    assert f"Sources/CTAP/{file}: {problem}" in result.stdout
