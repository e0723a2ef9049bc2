"""The interop suites' handle on passkeyd: the shipped python-fido2 adapter
(integrations/python, `passkeyd_fido2`) plus what only tests need, raw CTAPHID framing
for messages a host stack would never send, and the daemon built in this tree.
"""

from __future__ import annotations

import os
import struct
from pathlib import Path

import passkeyd_fido2
from passkeyd_fido2 import (  # noqa: F401  (re-exported for the suites)
    CMD_PRESENCE,
    CMD_REPLUG,
    CMD_STATUS,
    READ_TIMEOUT,
    REPORT_SIZE,
    SocketHidConnection,
    descriptor,
    open_connection,
    open_device,
    presence,
    replug,
    status,
    vendor_call,
)

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent


def socket_path_of(path: str) -> str:
    """The filesystem path of a descriptor path (drops a `#generation` suffix)."""
    return path.split("#", 1)[0]


# -- raw CTAPHID framing, for tests that must send what a host stack would not -


def init_packet(cid: int, cmd: int, payload: bytes, bcnt: int | None = None) -> bytes:
    """The first report of a message (CTAP 2.1 §11.2.4); `bcnt` may lie."""
    n = len(payload) if bcnt is None else bcnt
    head = struct.pack(">IBH", cid, 0x80 | cmd, n)
    return (head + payload[: REPORT_SIZE - 7]).ljust(REPORT_SIZE, b"\0")


def cont_packet(cid: int, seq: int, payload: bytes) -> bytes:
    return (struct.pack(">IB", cid, seq) + payload[: REPORT_SIZE - 5]).ljust(REPORT_SIZE, b"\0")


def frame(cid: int, cmd: int, payload: bytes) -> list[bytes]:
    """All reports of one well-formed message."""
    packets = [init_packet(cid, cmd, payload)]
    rest = payload[REPORT_SIZE - 7 :]
    seq = 0
    while rest:
        packets.append(cont_packet(cid, seq, rest))
        rest = rest[REPORT_SIZE - 5 :]
        seq += 1
    return packets


class RawChannel:
    """A bare socket speaking CTAPHID by hand: reports in, reassembled messages out."""

    def __init__(self, path: str, timeout: float = READ_TIMEOUT):
        self.conn = SocketHidConnection(path, timeout)

    def send(self, *packets: bytes) -> None:
        for p in packets:
            self.conn.sock.sendall(p)

    def send_raw(self, data: bytes) -> None:
        self.conn.sock.sendall(data)

    def receive(self) -> tuple[int, int, bytes]:
        """(cid, cmd without the 0x80 bit, payload) of the next non-keepalive message."""
        while True:
            first = self.conn.read_packet()
            cid, cmd, bcnt = struct.unpack_from(">IBH", first)
            if not cmd & 0x80:
                raise AssertionError(f"expected an initialization packet, got {first.hex()}")
            data = first[7:]
            seq = 0
            while len(data) < bcnt:
                nxt = self.conn.read_packet()
                ncid, nseq = struct.unpack_from(">IB", nxt)
                if ncid != cid or nseq != seq:
                    raise AssertionError(f"bad continuation {nxt[:5].hex()} for cid {cid:08x} seq {seq}")
                data += nxt[5:]
                seq += 1
            if cmd & 0x7F == 0x3B:  # KEEPALIVE
                continue
            return cid, cmd & 0x7F, data[:bcnt]

    def allocate(self) -> int:
        """CTAPHID_INIT on the broadcast channel; returns the new channel id."""
        nonce = os.urandom(8)
        self.send(init_packet(0xFFFFFFFF, 0x06, nonce))
        while True:
            cid, cmd, data = self.receive()
            if cid == 0xFFFFFFFF and cmd == 0x06 and data[:8] == nonce:
                return struct.unpack_from(">I", data, 8)[0]

    def call(self, cid: int, cmd: int, payload: bytes) -> tuple[int, int, bytes]:
        self.send(*frame(cid, cmd, payload))
        return self.receive()

    def close(self) -> None:
        self.conn.close()


# -- the daemon --------------------------------------------------------------


def daemon_binary() -> str:
    return os.environ.get("PASSKEYD_BIN", str(REPO / ".build" / "debug" / "passkeyd"))


class Daemon(passkeyd_fido2.Daemon):
    """passkeyd_fido2's throw-away daemon, run from this tree's build, with raw channels."""

    def __init__(self, *flags: str, data_dir: str | None = None, workdir: str | None = None):
        super().__init__(*flags, data_dir=data_dir, workdir=workdir, binary=daemon_binary())

    def raw(self) -> RawChannel:
        return RawChannel(self.socket)
