"""python-fido2 transport for passkeyd, and a handle on a running daemon.

passkeyd speaks CTAPHID on a Unix socket: one connection is one open handle on
a virtual HID device, and both directions carry 64-byte reports back to back
with no report-ID byte (CTAP 2.1 §11.2.4 framing, USB transport minus USB).
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import struct
import subprocess
import tempfile
import threading
import time
from pathlib import Path

from fido2 import cbor
from fido2.hid import CtapHidDevice
from fido2.hid.base import CtapHidConnection, HidDescriptor

REPORT_SIZE = 64

#: Vendor CTAPHID commands (CTAP 2.1 §11.2.9.2 reserves 0x40-0x7F for vendors).
CMD_PRESENCE = 0x50
CMD_REPLUG = 0x51
CMD_STATUS = 0x52

#: python-fido2 never times out a read; a daemon that stops answering must fail
#: the test rather than hang it. Keepalives arrive every 100 ms while a request
#: waits on the user, so a silent socket for this long is a fault.
READ_TIMEOUT = 15.0

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent


class SocketHidConnection(CtapHidConnection):
    """One HID handle on passkeyd: a stream socket cut into 64-byte reports."""

    def __init__(self, path: str, timeout: float = READ_TIMEOUT):
        self.path = path
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(timeout)
        self.sock.connect(path)

    def write_packet(self, data: bytes) -> None:
        if len(data) != REPORT_SIZE:
            raise ValueError(f"CTAPHID report must be {REPORT_SIZE} bytes, got {len(data)}")
        self.sock.sendall(data)

    def read_packet(self) -> bytes:
        buf = b""
        while len(buf) < REPORT_SIZE:
            chunk = self.sock.recv(REPORT_SIZE - len(buf))
            if not chunk:
                raise ConnectionError("passkeyd closed the connection")
            buf += chunk
        return buf

    def close(self) -> None:
        self.sock.close()


def descriptor(path: str) -> HidDescriptor:
    """A HID descriptor for the socket at `path` (path may carry a `#n` suffix)."""
    return HidDescriptor(
        path=path,
        vid=0,
        pid=0,
        report_size_in=REPORT_SIZE,
        report_size_out=REPORT_SIZE,
        product_name="passkeyd",
        serial_number=None,
    )


def socket_path_of(path: str) -> str:
    """The filesystem path of a descriptor path (drops a `#generation` suffix)."""
    return path.split("#", 1)[0]


def open_connection(desc: HidDescriptor) -> SocketHidConnection:
    return SocketHidConnection(socket_path_of(str(desc.path)))


def open_device(path: str) -> CtapHidDevice:
    """A python-fido2 CtapHidDevice on a fresh connection (CTAPHID_INIT done)."""
    desc = descriptor(path)
    return CtapHidDevice(desc, open_connection(desc))


# -- vendor commands ---------------------------------------------------------


def vendor_call(dev: CtapHidDevice, cmd: int, payload: bytes = b"", timeout: float = 10.0) -> bytes:
    """A CTAPHID call (vendor commands included) bounded in time: python-fido2 retries
    CHANNEL_BUSY until its event is set, so a busy channel that never clears must end it."""
    give_up = threading.Event()
    timer = threading.Timer(timeout, give_up.set)
    timer.daemon = True
    timer.start()
    try:
        return dev.call(cmd, payload, give_up)
    finally:
        timer.cancel()


def presence(dev: CtapHidDevice, approve: bool) -> bytes:
    """Resolves a pending `--presence prompt` / `--uv prompt` wait."""
    return vendor_call(dev, CMD_PRESENCE, bytes([1 if approve else 0]))


def replug(dev: CtapHidDevice) -> bytes:
    """Simulated unplug and replug: the device's power-cycle state."""
    return vendor_call(dev, CMD_REPLUG)


def status(dev: CtapHidDevice) -> dict:
    """The daemon's STATUS map, decoded."""
    return cbor.decode(vendor_call(dev, CMD_STATUS))


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


class Daemon:
    """A passkeyd process on a private socket and data directory."""

    def __init__(self, *flags: str, data_dir: str | None = None, workdir: str | None = None):
        self.flags = list(flags)
        self.workdir = workdir or tempfile.mkdtemp(prefix="passkeyd-interop-")
        self.socket = os.path.join(self.workdir, "ctaphid.sock")
        self.data_dir = data_dir or os.path.join(self.workdir, "data")
        self.log_path = os.path.join(self.workdir, "passkeyd.log")
        self.proc: subprocess.Popen | None = None

    def start(self, timeout: float = 30.0) -> "Daemon":
        binary = daemon_binary()
        if not os.access(binary, os.X_OK):
            raise FileNotFoundError(f"passkeyd not built at {binary} (swift build --product passkeyd)")
        if os.path.exists(self.socket):
            os.unlink(self.socket)
        log = open(self.log_path, "ab")
        env = {k: v for k, v in os.environ.items() if not k.startswith("PASSKEYD_")}
        self.proc = subprocess.Popen(
            [binary, "--socket", self.socket, "--data-dir", self.data_dir, *self.flags],
            stdout=log,
            stderr=subprocess.STDOUT,
            env=env,
        )
        log.close()
        deadline = time.monotonic() + timeout
        while True:
            if self.proc.poll() is not None:
                raise RuntimeError(f"passkeyd exited with {self.proc.returncode} at start:\n{self.log()}")
            try:
                s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                s.connect(self.socket)
                s.close()
                return self
            except OSError:
                s.close()
            if time.monotonic() > deadline:
                self.kill()
                raise TimeoutError(f"passkeyd socket {self.socket} never accepted:\n{self.log()}")
            time.sleep(0.05)

    def stop(self, timeout: float = 15.0) -> int:
        """SIGTERM and wait; returns the exit status."""
        if self.proc is None:
            return 0
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
                raise RuntimeError(f"passkeyd ignored SIGTERM for {timeout}s:\n{self.log()}")
        code = self.proc.returncode
        self.proc = None
        return code

    def kill(self) -> None:
        """SIGKILL: no chance to flush or clean up."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        self.proc = None

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def device(self) -> CtapHidDevice:
        return open_device(self.socket)

    def raw(self) -> RawChannel:
        return RawChannel(self.socket)

    def log(self) -> str:
        try:
            with open(self.log_path, "rb") as f:
                return f.read()[-4000:].decode("utf-8", "replace")
        except OSError:
            return ""

    def remove(self) -> None:
        shutil.rmtree(self.workdir, ignore_errors=True)
