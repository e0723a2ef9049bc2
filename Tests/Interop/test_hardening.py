"""Hardening findings F2, F3 and F7 against the real passkeyd.

F2: one data folder, one daemon — a second one exits non-zero with a sentence, whatever socket it uses.
F3: a keystore whose device-state row was deleted at rest is refused, not treated as factory-fresh.
F7: the passphrase never stays in the environment (nor reaches a detached child's); secret files
and the data folder that other users can reach are refused.
"""

from __future__ import annotations

import os
import stat
import signal
import sqlite3
import subprocess
import time

from fido2.ctap2 import Ctap2
from fido2.ctap2.pin import ClientPin

from passkeyd_hid import Daemon, daemon_binary, open_device
from test_faults import register_once
from test_keystore_refusal import fresh, refused

SECRET = "sentinel-passphrase-7f3a9c"


def clean_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PASSKEYD_")}
    env.update(extra)
    return env


def wait_exit(proc: subprocess.Popen, seconds: float = 30.0) -> int | None:
    """The exit status, or None (and the process killed) if it is still running after `seconds`."""
    try:
        return proc.wait(seconds)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        return None


def environ_of(pid: int) -> bytes:
    with open(f"/proc/{pid}/environ", "rb") as f:
        return f.read()


def cmdline_of(pid: int) -> bytes:
    with open(f"/proc/{pid}/cmdline", "rb") as f:
        return f.read()


def wait_for_socket(path: str, seconds: float = 30.0) -> None:
    deadline = time.monotonic() + seconds
    while not os.path.exists(path):
        assert time.monotonic() < deadline, f"{path} never appeared"
        time.sleep(0.05)


def stopped_store(tmp_path, name: str = "a") -> Daemon:
    """A daemon that made its keystore, registered one resident credential, and stopped."""
    daemon = Daemon("--presence", "auto", "--uv", "off", workdir=fresh(tmp_path, name)).start()
    try:
        register_once(daemon, "alice")
    finally:
        assert daemon.stop() == 0
    return daemon


# -- F2 -----------------------------------------------------------------------


def test_a_second_daemon_on_the_same_data_folder_exits_with_a_sentence(tmp_path):
    first = Daemon("--presence", "auto", "--uv", "off", workdir=fresh(tmp_path, "first")).start()
    try:
        register_once(first, "alice")
        # Another socket (as with and without XDG_RUNTIME_DIR), the same data folder.
        second = subprocess.Popen(
            [daemon_binary(), "--socket", str(tmp_path / "second.sock"), "--data-dir", first.data_dir],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=clean_env())
        code = wait_exit(second)
        assert code is not None, "both daemons ran on one keystore"
        assert code != 0
        stderr = second.stderr.read().decode()
        assert f"The keystore folder {first.data_dir} is in use by another passkeyd (pid {first.proc.pid})." in stderr, stderr
        assert not os.path.exists(tmp_path / "second.sock")
        register_once(first, "bob")  # the first one is undisturbed
    finally:
        assert first.stop() == 0


def test_two_daemons_starting_together_on_a_new_folder_make_one_keystore(tmp_path):
    data_dir = str(tmp_path / "data")
    procs = [
        subprocess.Popen(
            [daemon_binary(), "--presence", "auto", "--uv", "off", "--socket", str(tmp_path / f"{n}.sock"), "--data-dir", data_dir],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=clean_env())
        for n in range(2)
    ]
    try:
        deadline = time.monotonic() + 30
        while sum(p.poll() is None for p in procs) > 1 and time.monotonic() < deadline:
            time.sleep(0.05)
        running = [p for p in procs if p.poll() is None]
        exited = [p for p in procs if p.poll() is not None]
        assert len(running) == 1 and len(exited) == 1, "exactly one daemon may own a data folder"
        assert exited[0].returncode != 0
        assert f"{data_dir} is in use by another passkeyd" in exited[0].stderr.read().decode()
        winner = procs.index(running[0])
        wait_for_socket(str(tmp_path / f"{winner}.sock"))
        dev = open_device(str(tmp_path / f"{winner}.sock"))
        try:
            Ctap2(dev).make_credential(os.urandom(32), {"id": "example.com", "name": "E"}, {"id": b"u", "name": "u"},
                                       [{"type": "public-key", "alg": -7}], options={"rk": True})
        finally:
            dev.close()
        # The WAL index lives in the daemon's memory (locking_mode EXCLUSIVE): no -shm file.
        # The record log holds registrations until SQLite takes them in a batch.
        # keystore.reserve: space given up when the disk fills (docs/faults.md).
        assert sorted(os.listdir(data_dir)) in (
            ["keystore.key", "keystore.log", "keystore.reserve", "keystore.sqlite"],
            ["keystore.key", "keystore.log", "keystore.reserve", "keystore.sqlite", "keystore.sqlite-wal"],
        )
        assert stat.S_IMODE(os.stat(os.path.join(data_dir, "keystore.log")).st_mode) == 0o600
    finally:
        for p in procs:
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
                assert wait_exit(p, 15) == 0


# -- F3 -----------------------------------------------------------------------


def test_a_deleted_device_state_row_is_refused_not_a_factory_fresh_device(tmp_path):
    daemon = Daemon("--presence", "auto", "--uv", "off", workdir=fresh(tmp_path, "a")).start()
    try:
        register_once(daemon, "alice")
        dev = daemon.device()
        try:
            ClientPin(Ctap2(dev)).set_pin("12345678")
        finally:
            dev.close()
    finally:
        assert daemon.stop() == 0
    database = os.path.join(daemon.data_dir, "keystore.sqlite")
    with sqlite3.connect(database) as db:  # no key needed
        db.execute("DELETE FROM device_state")
    db.close()
    done = refused(tmp_path, daemon.data_dir)
    assert (f"The device state (PIN and retry counters) of the keystore {database} is missing").encode() in done.stderr, done.stderr


# -- F7 -----------------------------------------------------------------------


def test_the_passphrase_leaves_the_daemons_environment(tmp_path):
    data_dir = str(tmp_path / "data")
    sock = str(tmp_path / "ctaphid.sock")
    proc = subprocess.Popen([daemon_binary(), "--uv", "off", "--socket", sock, "--data-dir", data_dir],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=clean_env(PASSKEYD_PASSPHRASE=SECRET))
    try:
        wait_for_socket(sock)
        assert SECRET.encode() not in environ_of(proc.pid)
        assert b"PASSKEYD_PASSPHRASE=" not in environ_of(proc.pid)
    finally:
        proc.send_signal(signal.SIGTERM)
        assert wait_exit(proc, 15) == 0


def test_a_detached_daemon_gets_the_passphrase_without_environment_or_argv(tmp_path):
    data_dir = str(tmp_path / "data")
    sock = str(tmp_path / "ctaphid.sock")
    pid_file = str(tmp_path / "pid")
    done = subprocess.run(
        [daemon_binary(), "--detach", "--presence", "auto", "--uv", "off", "--socket", sock, "--data-dir", data_dir,
         "--pid-file", pid_file],
        capture_output=True, timeout=60, env=clean_env(PASSKEYD_PASSPHRASE=SECRET))
    assert done.returncode == 0, done.stderr
    with open(pid_file) as f:
        child = int(f.read())
    try:
        assert SECRET.encode() not in environ_of(child)
        assert SECRET.encode() not in cmdline_of(child)
        dev = open_device(sock)
        try:
            Ctap2(dev).make_credential(os.urandom(32), {"id": "example.com", "name": "E"}, {"id": b"u", "name": "u"},
                                       [{"type": "public-key", "alg": -7}], options={"rk": True})
        finally:
            dev.close()
    finally:
        os.kill(child, signal.SIGTERM)
        deadline = time.monotonic() + 15
        while os.path.exists(f"/proc/{child}") and time.monotonic() < deadline:
            time.sleep(0.05)
    # The child sealed the keystore under that passphrase: a foreground daemon given it opens it.
    secret_file = tmp_path / "passphrase"
    secret_file.write_text(SECRET + "\n")
    secret_file.chmod(0o600)
    again = Daemon("--presence", "auto", "--uv", "off", "--passphrase-file", str(secret_file),
                   data_dir=data_dir, workdir=fresh(tmp_path, "again")).start()
    try:
        dev = again.device()
        try:
            assert Ctap2(dev).get_assertion("example.com", os.urandom(32)).user["id"] == b"u"
        finally:
            dev.close()
    finally:
        assert again.stop() == 0


def test_a_passphrase_file_others_can_read_is_refused(tmp_path):
    data_dir = fresh(tmp_path, "data")
    os.chmod(data_dir, 0o700)
    secret_file = tmp_path / "passphrase"
    secret_file.write_text(SECRET + "\n")
    secret_file.chmod(0o644)
    done = refused(tmp_path, data_dir, "--passphrase-file", str(secret_file))
    stderr = done.stderr.decode()
    assert f"The passphrase file {secret_file} is accessible by other users (mode 0644)" in stderr, stderr
    assert f"chmod 600 {secret_file}" in stderr
    assert SECRET not in stderr
    assert os.listdir(data_dir) == []


def test_a_key_file_others_can_read_is_refused(tmp_path):
    daemon = stopped_store(tmp_path)
    key_file = os.path.join(daemon.data_dir, "keystore.key")
    os.chmod(key_file, 0o644)
    done = refused(tmp_path, daemon.data_dir)
    assert f"The key file {key_file} is accessible by other users (mode 0644)".encode() in done.stderr, done.stderr


def test_a_data_folder_others_can_write_is_refused(tmp_path):
    daemon = stopped_store(tmp_path)
    os.chmod(daemon.data_dir, 0o777)
    done = refused(tmp_path, daemon.data_dir)
    assert f"The keystore folder {daemon.data_dir} is writable by other users (mode 0777)".encode() in done.stderr, done.stderr
