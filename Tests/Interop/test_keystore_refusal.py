"""A daemon that cannot open its keystore exits non-zero with a sentence and writes nothing.

Issue: "A wrong passphrase, a missing key file or a foreign database: the daemon exits
non-zero with a clear message and writes nothing." Each case runs the real passkeyd and
hashes every file of the data directory before and after.
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
import subprocess

import pytest
from fido2.ctap2 import Ctap2

from passkeyd_hid import Daemon, daemon_binary
from test_faults import register_once


def fresh(tmp_path, name: str) -> str:
    path = tmp_path / name
    path.mkdir()
    return str(path)


def snapshot(directory: str) -> dict[str, str]:
    files = {}
    for root, _, names in os.walk(directory):
        for name in names:
            path = os.path.join(root, name)
            with open(path, "rb") as f:
                files[os.path.relpath(path, directory)] = hashlib.sha256(f.read()).hexdigest()
    return files


def refused(tmp_path, data_dir: str, *flags: str) -> subprocess.CompletedProcess:
    """Runs passkeyd on `data_dir`; it must exit on its own, non-zero, touching nothing."""
    before = snapshot(data_dir)
    env = {k: v for k, v in os.environ.items() if not k.startswith("PASSKEYD_")}
    done = subprocess.run(
        [daemon_binary(), "--socket", str(tmp_path / "refused.sock"), "--data-dir", data_dir, *flags],
        capture_output=True, timeout=60, env=env)
    assert done.returncode != 0, "the daemon must not start on a keystore it cannot open"
    assert snapshot(data_dir) == before, "nothing in the data directory may change"
    assert not os.path.exists(tmp_path / "refused.sock"), "it never listened"
    return done


@pytest.fixture
def passphrase_store(tmp_path):
    """A keystore wrapped by a passphrase, holding one credential; yields its data directory."""
    secret = tmp_path / "passphrase"
    secret.write_text("correct horse battery staple\n")
    secret.chmod(0o600)  # a passphrase file others can read is refused (hardening F7)
    daemon = Daemon("--presence", "auto", "--uv", "off", "--passphrase-file", str(secret), workdir=fresh(tmp_path, "a")).start()
    try:
        register_once(daemon, "alice")
    finally:
        assert daemon.stop() == 0
    return daemon.data_dir, secret


def test_wrong_passphrase_is_refused_and_the_right_one_still_opens(tmp_path, passphrase_store):
    data_dir, secret = passphrase_store
    wrong = tmp_path / "wrong"
    wrong.write_text("Tr0ub4dor&3\n")
    wrong.chmod(0o600)
    done = refused(tmp_path, data_dir, "--passphrase-file", str(wrong))
    assert b"passphrase" in done.stderr.lower(), done.stderr

    done = refused(tmp_path, data_dir)
    assert b"passphrase" in done.stderr.lower(), done.stderr

    daemon = Daemon("--presence", "auto", "--uv", "off", "--passphrase-file", str(secret),
                    data_dir=data_dir, workdir=fresh(tmp_path, "b")).start()
    try:
        dev = daemon.device()
        try:
            assertion = Ctap2(dev).get_assertion("example.com", os.urandom(32))
            assert assertion.user["id"], "the credential made before is still there"
        finally:
            dev.close()
    finally:
        assert daemon.stop() == 0


def test_missing_key_file_is_refused(tmp_path):
    daemon = Daemon("--presence", "auto", "--uv", "off", workdir=fresh(tmp_path, "a")).start()
    try:
        register_once(daemon, "bob")
    finally:
        assert daemon.stop() == 0
    key_file = os.path.join(daemon.data_dir, "keystore.key")
    assert os.path.exists(key_file)
    os.rename(key_file, key_file + ".elsewhere")
    done = refused(tmp_path, daemon.data_dir)
    assert b"key file" in done.stderr.lower(), done.stderr


def test_foreign_database_is_refused(tmp_path):
    data_dir = tmp_path / "foreign"
    data_dir.mkdir(mode=0o700)
    with sqlite3.connect(data_dir / "keystore.sqlite") as db:
        db.execute("CREATE TABLE notes (body TEXT)")
        db.execute("INSERT INTO notes VALUES ('not a keystore')")
    done = refused(tmp_path, str(data_dir))
    assert b"not a passkeyd keystore" in done.stderr, done.stderr
