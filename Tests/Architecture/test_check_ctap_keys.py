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


@pytest.mark.parametrize("old, new", [
    # A reader that spells the key instead of naming it in the key table.
    ("map.required(CodingKeys.rpID,", "map.required(1,"),
    # A writer that does.
    (".keyed(CodingKeys.self, [\n            (.rpID, .textString(rpID)),", ".intKeyed([\n            (1, .textString(rpID)),"),
])
def test_an_integer_key_written_beside_its_key_table_fails(tree, old, new):
    edit(tree, "GetAssertionRequest.swift", old, new)
    result = check(tree)
    assert result.returncode == 1
    assert "GetAssertionRequest.swift: GetAssertionRequest: key 1 is written 2 times" in result.stdout


def test_a_member_name_spelled_beside_synthesized_keys_fails(tree):
    edit(tree, "RequestOptions.swift", "map.optional(CodingKeys.uv,", 'map.optional("uv",')
    result = check(tree)
    assert result.returncode == 1
    assert 'RequestOptions: key "uv" is written 2 times' in result.stdout


def test_a_hand_written_map_read_and_written_with_literals_fails(tree):
    edit(tree, "TestControls/FaultRule.swift", "map.optional(Key.rp,", 'map.optional("rp",')
    result = check(tree)
    assert result.returncode == 1
    assert 'FaultRule: key "rp" is written 2 times' in result.stdout


def test_a_direct_writer_that_spells_a_key_fails(tree):
    edit(tree, "GetAssertionResponse.swift", "writer.key(CodingKeys.signature)", "writer.unsigned(3)")
    result = check(tree)
    assert result.returncode == 1
    assert "GetAssertionResponse: key 3 is written 2 times" in result.stdout
