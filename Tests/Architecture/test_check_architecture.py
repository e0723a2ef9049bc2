"""scripts/check-architecture holds the code to docs/architecture.md and Package.swift:
it passes on the tree as it is and fails, naming the place, on each kind of drift."""
import json
import os
import shutil
import subprocess
import sys

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
CHECK = os.path.join(ROOT, "scripts", "check-architecture")


@pytest.fixture(scope="module")
def package_json(tmp_path_factory):
    dump = subprocess.run(["swift", "package", "dump-package"], cwd=ROOT, check=True, capture_output=True, text=True).stdout
    path = tmp_path_factory.mktemp("dump") / "package.json"
    path.write_text(dump)
    return str(path)


@pytest.fixture
def tree(tmp_path):
    """A copy of what the check reads: the sources, the tests and the module table."""
    for folder in ("Sources", "Tests"):
        shutil.copytree(os.path.join(ROOT, folder), tmp_path / folder,
                        ignore=lambda _, names: [n for n in names if n in ("Interop", "Architecture", "__pycache__")])
    (tmp_path / "docs").mkdir()
    shutil.copy(os.path.join(ROOT, "docs", "architecture.md"), tmp_path / "docs")
    return tmp_path


def check(root, package_json):
    return subprocess.run([sys.executable, CHECK, "--root", str(root), "--package-json", package_json],
                          capture_output=True, text=True)


def test_the_tree_as_it_is_passes(tree, package_json):
    result = check(tree, package_json)
    assert result.returncode == 0, result.stdout + result.stderr


def test_an_upward_import_fails_naming_the_file(tree, package_json):
    (tree / "Sources" / "CBOR" / "Planted.swift").write_text("import CTAP\n")
    result = check(tree, package_json)
    assert result.returncode == 1
    assert "Sources/CBOR/Planted.swift:1: CBOR imports CTAP, which docs/architecture.md allows it no arrow to (allowed: nothing)" in result.stdout
    assert "Package.swift does not declare" in result.stdout


def test_an_undeclared_import_fails_even_where_the_table_allows_it(tree, package_json):
    (tree / "Sources" / "WebAuthn" / "Planted.swift").write_text("@testable import CBOR\n")
    with open(tree / "docs" / "architecture.md") as f:
        text = f.read().replace("| `CTAP`, `Crypto`, `PasskeydMacros` |", "| `CBOR`, `CTAP`, `Crypto`, `PasskeydMacros` |")
    (tree / "docs" / "architecture.md").write_text(text)
    result = check(tree, package_json)
    assert result.returncode == 1
    assert result.stdout.strip() == ("check-architecture: Sources/WebAuthn/Planted.swift:1: WebAuthn imports CBOR, "
                                     "which Package.swift does not declare for it")


def test_a_declared_dependency_nobody_imports_fails(tree, package_json, tmp_path):
    dump = json.load(open(package_json))
    for target in dump["targets"]:
        if target["name"] == "RelyingParty":
            target["dependencies"].append({"byName": ["CTAPHID", None]})
    altered = tmp_path / "altered.json"
    altered.write_text(json.dumps(dump))
    result = check(tree, str(altered))
    assert result.returncode == 1
    assert "Package.swift: RelyingParty declares CTAPHID but no file of Sources/RelyingParty imports it" in result.stdout


def test_a_cycle_in_the_table_fails(tree, package_json):
    with open(tree / "docs" / "architecture.md") as f:
        text = f.read().replace("| `CBOR` | `CBORValue`; the CTAP2-canonical encoder; the strict decoder for untrusted input | nothing |",
                                "| `CBOR` | `CBORValue`; the CTAP2-canonical encoder; the strict decoder for untrusted input | `CTAP` |")
    (tree / "docs" / "architecture.md").write_text(text)
    result = check(tree, package_json)
    assert result.returncode == 1
    assert "the module table has a cycle: CBOR -> CTAP -> CBOR" in result.stdout
