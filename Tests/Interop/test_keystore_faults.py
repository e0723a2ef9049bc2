"""Faults around the keystore and the socket, against the real daemon (docs/faults.md).

Disk full during registration, a read-only data folder, the keystore deleted under a
running daemon, a client stopped (SIGSTOP) in the middle of a message, and 200
connections at once. Each test checks the behaviour docs/faults.md promises and that the
daemon goes on serving everyone else.

The file-system faults use real file systems, not mocks: a 16 MiB tmpfs filled to ENOSPC,
and a read-only bind mount. Both need CAP_SYS_ADMIN (root in the build container); without
it those tests are skipped, saying so.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import sqlite3
import subprocess
import sys
import threading
import time

import pytest
from fido2.ctap import CtapError
from fido2.ctap2 import Ctap2
from fido2.hid import CTAPHID

from passkeyd_hid import Daemon, RawChannel, SocketHidConnection, daemon_binary, vendor_call
from test_hardening import stopped_store
from test_keystore_refusal import fresh, snapshot

ES256 = [{"type": "public-key", "alg": -7}]
RP = {"id": "example.com", "name": "Example"}
CMD_PING = 0x01
CMD_ERROR = 0x3F
ERR_MSG_TIMEOUT = 0x05
ERR_CHANNEL_BUSY = 0x06


def run(*command: str) -> subprocess.CompletedProcess:
    return subprocess.run(list(command), capture_output=True, text=True, timeout=30)


@contextlib.contextmanager
def mounted(target: str, *mount_args: str):
    """`mount <args> <target>`, unmounted (lazily, should a file stay open) at the end."""
    os.makedirs(target, exist_ok=True)
    done = run("mount", *mount_args, target)
    if done.returncode != 0:
        pytest.skip(f"cannot mount here ({done.stderr.strip()}); this fault needs CAP_SYS_ADMIN")
    try:
        yield target
    finally:
        run("umount", "-l", target)


def register(dev, name: str) -> bytes:
    """A resident ES256 credential for `name`; returns its credential ID."""
    att = Ctap2(dev).make_credential(os.urandom(32), RP, {"id": name.encode(), "name": name}, ES256, options={"rk": True})
    return att.auth_data.credential_data.credential_id


def resident_ids(dev) -> set[bytes]:
    """The credential IDs getAssertion finds for the RP (CTAP 2.1 §6.2, getNextAssertion)."""
    ctap = Ctap2(dev)
    first = ctap.get_assertion(RP["id"], os.urandom(32))
    ids = {first.credential["id"]}
    for _ in range((first.number_of_credentials or 1) - 1):
        ids.add(ctap.get_next_assertion().credential["id"])
    return ids


def fill(path: str) -> None:
    """Writes `path` until the file system answers ENOSPC."""
    chunk = b"\0" * 65536
    with open(path, "wb", buffering=0) as f:
        while True:
            try:
                f.write(chunk)
            except OSError as error:
                if error.errno != 28:  # ENOSPC
                    raise
                if len(chunk) == 1:
                    break
                chunk = chunk[: len(chunk) // 2]
        os.fsync(f.fileno())


def integrity(database: str) -> str:
    with contextlib.closing(sqlite3.connect(f"file:{database}?mode=ro", uri=True)) as db:
        return db.execute("PRAGMA integrity_check").fetchone()[0]


def pings(dev) -> bool:
    return vendor_call(dev, CTAPHID.PING, b"still here") == b"still here"


# -- disk full ----------------------------------------------------------------


def test_disk_full_during_registration(tmp_path):
    with mounted(str(tmp_path / "fs"), "-t", "tmpfs", "-o", "size=16m,mode=0700", "tmpfs") as fs:
        daemon = Daemon("--presence", "auto", "--uv", "off", data_dir=os.path.join(fs, "data"),
                        workdir=fresh(tmp_path, "d")).start()
        try:
            dev = daemon.device()
            try:
                kept = {register(dev, "before-1"), register(dev, "before-2")}
                fill(os.path.join(fs, "ballast"))

                # Registrations until one meets the full disk: those that fit in the record log
                # (its room is allocated when made; SQLite takes them in batches of 1 024, and
                # the batch that finds no room refuses its registration); each that was
                # acknowledged must survive.
                refusal = None
                for n in range(1100):
                    try:
                        kept.add(register(dev, f"full-{n}"))
                    except CtapError as error:
                        refusal = error.code
                        break
                assert refusal == CtapError.ERR.KEY_STORE_FULL, f"expected KEY_STORE_FULL, got {refusal!r}:\n{daemon.log()}"

                # Still serving. An assertion must store its credential's new signature counter
                # first; while that write cannot be made it answers CTAP1_ERR_OTHER rather than
                # sign with a counter a restart would take back (docs/faults.md).
                other = daemon.device()
                try:
                    assert pings(other)
                    assert Ctap2(other).get_info().versions
                    for ctap_dev in (dev, other):
                        try:
                            assert resident_ids(ctap_dev) == kept
                        except CtapError as error:
                            assert error.code == CtapError.ERR.OTHER, error
                finally:
                    other.close()
                assert daemon.alive()

                os.unlink(os.path.join(fs, "ballast"))
                kept.add(register(dev, "after"))
                assert resident_ids(dev) == kept
            finally:
                dev.close()
        finally:
            assert daemon.stop() == 0
        assert integrity(os.path.join(daemon.data_dir, "keystore.sqlite")) == "ok"
        again = Daemon("--presence", "auto", "--uv", "off", data_dir=daemon.data_dir, workdir=fresh(tmp_path, "e")).start()
        try:
            dev = again.device()
            try:
                assert resident_ids(dev) == kept, "every acknowledged credential is there after a restart"
            finally:
                dev.close()
        finally:
            assert again.stop() == 0


# -- read-only data folder ------------------------------------------------------


def test_a_read_only_data_folder_is_refused_with_a_sentence(tmp_path):
    daemon = stopped_store(tmp_path)
    with mounted(str(tmp_path / "ro"), "--bind", daemon.data_dir):
        remount = run("mount", "-o", "remount,bind,ro", str(tmp_path / "ro"))
        assert remount.returncode == 0, remount.stderr
        before = snapshot(daemon.data_dir)
        env = {k: v for k, v in os.environ.items() if not k.startswith("PASSKEYD_")}
        done = subprocess.run(
            [daemon_binary(), "--socket", str(tmp_path / "ro.sock"), "--data-dir", str(tmp_path / "ro")],
            capture_output=True, timeout=60, env=env)
        assert done.returncode != 0
        stderr = done.stderr.decode()
        assert f"The keystore folder {tmp_path / 'ro'} is on a read-only file system" in stderr, stderr
        assert snapshot(daemon.data_dir) == before
        # A new keystore cannot be made there either, and says so.
        os.makedirs(tmp_path / "empty", mode=0o700)
        with mounted(str(tmp_path / "ro-empty"), "--bind", str(tmp_path / "empty")):
            assert run("mount", "-o", "remount,bind,ro", str(tmp_path / "ro-empty")).returncode == 0
            done = subprocess.run(
                [daemon_binary(), "--socket", str(tmp_path / "ro2.sock"), "--data-dir", str(tmp_path / "ro-empty")],
                capture_output=True, timeout=60, env=env)
            assert done.returncode != 0
            assert f"The keystore folder {tmp_path / 'ro-empty'} is on a read-only file system" in done.stderr.decode()
    # Writable again: the same keystore opens, unchanged.
    again = Daemon("--presence", "auto", "--uv", "off", data_dir=daemon.data_dir, workdir=fresh(tmp_path, "b")).start()
    try:
        dev = again.device()
        try:
            assert len(resident_ids(dev)) == 1
        finally:
            dev.close()
    finally:
        assert again.stop() == 0


# -- keystore deleted under the daemon --------------------------------------------


def test_the_keystore_deleted_under_a_running_daemon(daemon_factory, tmp_path):
    daemon = daemon_factory("--presence", "auto", "--uv", "off")
    dev = daemon.device()
    other = daemon.device()
    try:
        register(dev, "alice")
        for name in os.listdir(daemon.data_dir):
            os.unlink(os.path.join(daemon.data_dir, name))
        # Nothing more is acknowledged that would be lost with the deleted file.
        with pytest.raises(CtapError) as refused:
            register(dev, "bob")
        assert refused.value.code == CtapError.ERR.OTHER
        assert "was deleted or replaced while passkeyd had it open" in daemon.log()
        assert os.listdir(daemon.data_dir) == [], "no new files appear in its place"
        # Everyone else is still served.
        assert pings(other)
        assert Ctap2(other).get_info().versions
    finally:
        dev.close()
        other.close()
    assert daemon.stop() == 0
    # A restart makes a new, empty keystore there.
    again = daemon_factory("--presence", "auto", "--uv", "off", data_dir=daemon.data_dir)
    dev = again.device()
    try:
        with pytest.raises(CtapError) as none:
            Ctap2(dev).get_assertion(RP["id"], os.urandom(32))
        assert none.value.code == CtapError.ERR.NO_CREDENTIALS
        register(dev, "carol")
    finally:
        dev.close()


# -- a client stopped in the middle of a message -----------------------------------

STOPPED_CLIENT = r"""
import os, sys, struct
sys.path.insert(0, sys.argv[2])
from passkeyd_hid import RawChannel, frame
raw = RawChannel(sys.argv[1], timeout=60)
cid = raw.allocate()
packets = frame(cid, 0x01, bytes(range(200)))
raw.send(packets[0])
print("sent-first", flush=True)
os.kill(os.getpid(), 19)  # SIGSTOP, mid-message
raw.send(*packets[1:])
rcid, cmd, data = raw.receive()
print(f"reply {rcid:08x} {cmd:02x} {data.hex()}", flush=True)
again = raw.call(cid, 0x01, b"after")
print(f"again {again[1]:02x} {again[2].hex()}", flush=True)
"""


def test_a_client_stopped_mid_message_does_not_hold_up_others(daemon_factory, tmp_path):
    daemon = daemon_factory("--presence", "auto", "--uv", "off")
    script = tmp_path / "stopped_client.py"
    script.write_text(STOPPED_CLIENT)
    here = os.path.dirname(os.path.abspath(__file__))
    client = subprocess.Popen([sys.executable, str(script), daemon.socket, here],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert client.stdout.readline().strip() == "sent-first"
        deadline = time.monotonic() + 10
        while open(f"/proc/{client.pid}/stat").read().split()[2] != "T":
            assert time.monotonic() < deadline, "the client never stopped"
            time.sleep(0.02)
        # While it is stopped, well past the message timeout, others are served.
        dev = daemon.device()
        try:
            for n in range(3):
                assert pings(dev)
                register(dev, f"while-stopped-{n}")
                time.sleep(0.3)
        finally:
            dev.close()
        os.kill(client.pid, signal.SIGCONT)
        out, err = client.communicate(timeout=30)
    finally:
        if client.poll() is None:
            client.kill()
            client.wait()
    lines = out.splitlines()
    # The abandoned message was answered with ERR_MSG_TIMEOUT (CTAP 2.1 §11.2.4) on its channel;
    # the continuation packets that arrived after it are dropped; the channel then works.
    assert any(line.startswith("reply ") and line.endswith(" 3f 05") for line in lines), out + err
    assert lines[-1] == "again 01 " + b"after".hex(), out + err
    assert daemon.alive()


# -- 200 connections at once ----------------------------------------------------------


class ConnectedChannel(RawChannel):
    """A RawChannel over a socket its caller connected."""

    def __init__(self, sock: socket.socket):
        conn = SocketHidConnection.__new__(SocketHidConnection)
        conn.path, conn.sock = sock.getpeername(), sock
        self.conn = conn


def test_two_hundred_connections_at_once(daemon_factory):
    daemon = daemon_factory("--presence", "auto", "--uv", "off")
    start = threading.Barrier(200)
    results: list[object] = [None] * 200

    def one(k: int):
        try:
            # A blocking connect, as a host's: one that finds the listen backlog full waits
            # for the daemon to accept instead of failing with EAGAIN.
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            sock.connect(daemon.socket)
            sock.settimeout(60)
            raw = ConnectedChannel(sock)
            try:
                start.wait(60)
                cid = raw.allocate()
                payload = k.to_bytes(2, "big") * 40
                # One transaction at a time on the device (CTAP 2.1 §11.2.9.1): a PING that finds
                # another running gets ERR_CHANNEL_BUSY and is sent again, as a host does.
                deadline = time.monotonic() + 60
                while True:
                    rcid, cmd, data = raw.call(cid, CMD_PING, payload)
                    if (cmd, data[:1]) != (CMD_ERROR, bytes([ERR_CHANNEL_BUSY])) or time.monotonic() > deadline:
                        break
                    time.sleep(0.01)
                ok = rcid == cid and cmd == CMD_PING and data == payload
                results[k] = True if ok else f"cid {cid:08x} got {rcid:08x} cmd {cmd:#x} {data.hex()}"
            finally:
                raw.close()
        except Exception as error:  # recorded, asserted below
            results[k] = error

    # Connected before the crowd: a non-blocking connect during it can meet the backlog bug (xfail below).
    dev = daemon.device()
    threads = [threading.Thread(target=one, args=(k,), daemon=True) for k in range(200)]
    for t in threads:
        t.start()
    try:
        register(dev, "during-the-crowd")
        for t in threads:
            t.join(120)
        failures = [(k, r) for k, r in enumerate(results) if r is not True]
        assert not failures, f"{len(failures)} of 200 connections failed, e.g. {failures[:3]}"
        assert pings(dev)
        register(dev, "after-the-crowd")
    finally:
        dev.close()
    assert daemon.alive()


def test_a_burst_of_non_blocking_connects_is_accepted_and_sigterm_exits_cleanly(tmp_path):
    daemon = Daemon("--presence", "auto", "--uv", "off", workdir=fresh(tmp_path, "burst")).start()
    socks: list[socket.socket] = []
    refused: list[OSError] = []
    lock = threading.Lock()

    def connect():
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.settimeout(60)  # non-blocking underneath, as python-fido2-style transports are
        try:
            sock.connect(daemon.socket)
            with lock:
                socks.append(sock)
        except OSError as error:
            sock.close()
            with lock:
                refused.append(error)

    try:
        threads = [threading.Thread(target=connect) for _ in range(250)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
        code = daemon.stop()
        assert not refused, f"{len(refused)} of 250 connects refused, e.g. {refused[0]!r}"
        assert code == 0, f"passkeyd exited {code} on SIGTERM:\n{daemon.log()[:600]}"
    finally:
        for sock in socks:
            sock.close()
        daemon.kill()
