"""pytest plugin: records the CTAPHID traffic of the interop suites for the fuzz corpora.

Loaded by Fuzz/Recording/record.sh as `-p record_traffic`. Every socket the suites open
to passkeyd (python-fido2's transport and the raw channels) is wrapped so that each write
and read is appended to $FUZZ_RECORD/traffic.jsonl with its connection number; each
daemon's keystore directory is copied to $FUZZ_RECORD/keystores/<n>/ before it is removed.
"""

from __future__ import annotations

import itertools
import json
import os
import shutil
import threading

import passkeyd_hid

OUT = os.environ["FUZZ_RECORD"]
_lock = threading.Lock()
_connections = itertools.count()
_stores = itertools.count()
os.makedirs(OUT, exist_ok=True)
_log = open(os.path.join(OUT, "traffic.jsonl"), "a", encoding="utf-8")


def _record(connection: int, direction: str, data: bytes) -> None:
    if not data:
        return
    with _lock:
        _log.write(json.dumps({"c": connection, "d": direction, "hex": data.hex()}) + "\n")
        _log.flush()


class _RecordingSocket:
    """The socket, with sendall and recv copied to the log."""

    def __init__(self, sock, connection: int):
        self._sock = sock
        self._connection = connection

    def sendall(self, data: bytes) -> None:
        _record(self._connection, "w", bytes(data))
        self._sock.sendall(data)

    def recv(self, size: int) -> bytes:
        data = self._sock.recv(size)
        _record(self._connection, "r", data)
        return data

    def __getattr__(self, name):
        return getattr(self._sock, name)


_original_init = passkeyd_hid.SocketHidConnection.__init__


def _init(self, *args, **kwargs):
    _original_init(self, *args, **kwargs)
    self.sock = _RecordingSocket(self.sock, next(_connections))


_original_remove = passkeyd_hid.Daemon.remove


def _remove(self):
    store = os.path.join(OUT, "keystores", str(next(_stores)))
    if os.path.isdir(self.data_dir):
        shutil.copytree(self.data_dir, store, ignore=shutil.ignore_patterns("*.sock", "*.pid"), dirs_exist_ok=True)
    _original_remove(self)


passkeyd_hid.SocketHidConnection.__init__ = _init
passkeyd_hid.Daemon.remove = _remove
