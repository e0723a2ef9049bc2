"""passkeyd for Python: python-fido2 on passkeyd's Unix socket (this module), and
`passkeyd.testing.VirtualAuthenticator`, Chrome's virtual-authenticator vocabulary over the
daemon's own vendor commands (docs/vendor-commands.md).

passkeyd is a virtual FIDO2 HID device whose reports travel on a Unix stream socket: one
connection is one open handle, and both directions carry 64-byte reports back to back with
no report-ID byte (CTAP 2.1 §11.2.4 framing, USB transport minus USB). Before a byte is
sent, the socket is checked as passkeyd's own clients check it: its folder is a real
directory of ours that nobody else can write, and the process serving it runs as our uid.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import stat
import struct
import subprocess
import tempfile
import threading
import time

from fido2 import cbor
from fido2.hid import CtapHidDevice
from fido2.hid.base import CtapHidConnection, HidDescriptor

__all__ = [
    "REPORT_SIZE",
    "CMD_PRESENCE",
    "CMD_REPLUG",
    "CMD_STATUS",
    "CMD_FAULT",
    "CMD_WATCH",
    "CMD_CONTROLS",
    "UntrustedSocket",
    "SocketHidConnection",
    "Daemon",
    "default_socket_path",
    "descriptor",
    "open_connection",
    "open_device",
    "vendor_call",
    "presence",
    "replug",
    "status",
]

REPORT_SIZE = 64

#: passkeyd's vendor CTAPHID commands (CTAP 2.1 §11.2.9.2 reserves 0x40-0x7F for vendors).
CMD_PRESENCE = 0x50
CMD_REPLUG = 0x51
CMD_STATUS = 0x52
CMD_FAULT = 0x53
CMD_WATCH = 0x54
CMD_CONTROLS = 0x55

#: python-fido2 never times out a read; a daemon that stops answering must fail the call
#: rather than hang it. Keepalives arrive every 100 ms while a request waits on the user.
READ_TIMEOUT = 15.0


class UntrustedSocket(ConnectionError):
    """The socket is not our own passkeyd's; nothing was sent."""


def default_socket_path(environ=None) -> str:
    """`$PASSKEYD_SOCKET`, else `$XDG_RUNTIME_DIR/passkeyd/ctaphid.sock`, else
    `/tmp/passkeyd-$UID/ctaphid.sock`: the rule passkeyd and passkeyctl follow."""
    env = os.environ if environ is None else environ
    if env.get("PASSKEYD_SOCKET"):
        return env["PASSKEYD_SOCKET"]
    if env.get("XDG_RUNTIME_DIR"):
        return os.path.join(env["XDG_RUNTIME_DIR"], "passkeyd", "ctaphid.sock")
    return f"/tmp/passkeyd-{os.getuid()}/ctaphid.sock"


def _check_folder(path: str) -> None:
    """The folder rule: a real directory (not a symlink) of ours that nobody else can write."""
    folder = os.path.dirname(path) or "."
    try:
        info = os.lstat(folder)
    except FileNotFoundError:
        return  # nothing there: connect() says so
    if not stat.S_ISDIR(info.st_mode):
        raise UntrustedSocket(f"Refusing the socket at {path}: its folder {folder} is not a real directory (a symlink?).")
    if info.st_uid != os.getuid():
        raise UntrustedSocket(f"Refusing the socket at {path}: its folder {folder} belongs to uid {info.st_uid}, not to you.")
    if info.st_mode & 0o022:
        raise UntrustedSocket(f"Refusing the socket at {path}: its folder {folder} can be written by other users "
                              f"(mode {stat.S_IMODE(info.st_mode):o}).")


def _check_peer(sock: socket.socket, path: str) -> None:
    """The process serving the socket runs as us (SO_PEERCRED: pid, uid, gid)."""
    _, uid, _ = struct.unpack("3i", sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i")))
    if uid != os.getuid():
        raise UntrustedSocket(f"Refusing the socket at {path}: it is served by uid {uid}, not by you.")


class SocketHidConnection(CtapHidConnection):
    """One HID handle on passkeyd: a stream socket cut into 64-byte reports."""

    def __init__(self, path: str, timeout: float = READ_TIMEOUT):
        self.path = path
        _check_folder(path)
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(timeout)
        try:
            self.sock.connect(path)
            _check_peer(self.sock, path)
        except BaseException:
            self.sock.close()
            raise

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


def descriptor(path: str | None = None) -> HidDescriptor:
    """A HID descriptor for the socket at `path` (default: `default_socket_path()`); the
    path may carry a `#n` suffix, which tells otherwise equal descriptors apart."""
    return HidDescriptor(
        path=path or default_socket_path(),
        vid=0,
        pid=0,
        report_size_in=REPORT_SIZE,
        report_size_out=REPORT_SIZE,
        product_name="passkeyd",
        serial_number=None,
    )


def open_connection(desc: HidDescriptor) -> SocketHidConnection:
    """A connection for a descriptor made by `descriptor()` (drops a `#n` suffix)."""
    return SocketHidConnection(str(desc.path).split("#", 1)[0])


def open_device(path: str | None = None) -> CtapHidDevice:
    """A python-fido2 CtapHidDevice on a fresh connection (CTAPHID_INIT done), on `path`
    or passkeyd's default socket."""
    desc = descriptor(path)
    return CtapHidDevice(desc, open_connection(desc))


# -- vendor commands (docs/vendor-commands.md) -------------------------------


def vendor_call(dev: CtapHidDevice, cmd: int, payload: bytes = b"", timeout: float = 10.0) -> bytes:
    """A CTAPHID call bounded in time: python-fido2 retries CHANNEL_BUSY until its event
    is set, so a busy channel that never clears must end it."""
    give_up = threading.Event()
    timer = threading.Timer(timeout, give_up.set)
    timer.daemon = True
    timer.start()
    try:
        return dev.call(cmd, payload, give_up)
    finally:
        timer.cancel()


def presence(dev: CtapHidDevice, approve: bool) -> bytes:
    """Answers a pending `--presence prompt` / `--uv prompt` wait."""
    return vendor_call(dev, CMD_PRESENCE, bytes([1 if approve else 0]))


def replug(dev: CtapHidDevice) -> bytes:
    """A simulated unplug and replug: the device's power-cycle state."""
    return vendor_call(dev, CMD_REPLUG)


def status(dev: CtapHidDevice) -> dict:
    """The daemon's STATUS map (version, pid, socket, startedAt, pending…)."""
    return cbor.decode(vendor_call(dev, CMD_STATUS))


# -- a throw-away daemon ------------------------------------------------------


def daemon_binary() -> str:
    """`$PASSKEYD_BIN`, else `passkeyd` on PATH."""
    explicit = os.environ.get("PASSKEYD_BIN")
    if explicit:
        return explicit
    found = shutil.which("passkeyd")
    if not found:
        raise FileNotFoundError("passkeyd is not on PATH (make install) and PASSKEYD_BIN is not set")
    return found


class Daemon:
    """A passkeyd process on a private socket and data folder, for tests."""

    def __init__(self, *flags: str, data_dir: str | None = None, workdir: str | None = None, binary: str | None = None):
        self.flags = list(flags)
        self.binary = binary
        self.workdir = workdir or tempfile.mkdtemp(prefix="passkeyd-")
        self.socket = os.path.join(self.workdir, "ctaphid.sock")
        self.data_dir = data_dir or os.path.join(self.workdir, "data")
        self.log_path = os.path.join(self.workdir, "passkeyd.log")
        self.proc: subprocess.Popen | None = None

    def start(self, timeout: float = 30.0) -> "Daemon":
        binary = self.binary or daemon_binary()
        if not os.access(binary, os.X_OK):
            raise FileNotFoundError(f"passkeyd not found at {binary}")
        if os.path.exists(self.socket):
            os.unlink(self.socket)
        log = open(self.log_path, "ab")
        # Only what the flags say: none of the caller's PASSKEYD_* settings leak in.
        env = {k: v for k, v in os.environ.items() if not k.startswith("PASSKEYD_")}
        self.proc = subprocess.Popen(
            [binary, "--socket", self.socket, "--data-dir", self.data_dir, *self.flags],
            stdout=log,
            stderr=subprocess.STDOUT,
            env=env,
        )
        log.close()
        began = time.monotonic()
        deadline = began + timeout
        while True:
            if self.proc.poll() is not None:
                raise RuntimeError(f"passkeyd exited with {self.proc.returncode} at start:\n{self.log()}")
            probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                probe.connect(self.socket)
                return self
            except OSError:
                pass
            finally:
                probe.close()
            if time.monotonic() > deadline:
                self.kill()
                raise TimeoutError(f"passkeyd socket {self.socket} never accepted:\n{self.log()}")
            # A release passkeyd accepts some 20 ms after its start: asked every 5 ms at first, a
            # fixture waits for the daemon, not for its own poll (50 ms cost it 30 on each start).
            time.sleep(0.005 if time.monotonic() - began < 0.5 else 0.05)

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

    def log(self) -> str:
        try:
            with open(self.log_path, "rb") as f:
                return f.read()[-4000:].decode("utf-8", "replace")
        except OSError:
            return ""

    def remove(self) -> None:
        shutil.rmtree(self.workdir, ignore_errors=True)

    def __enter__(self) -> "Daemon":
        return self.start()

    def __exit__(self, *exc) -> None:
        try:
            self.stop()
        finally:
            self.remove()
