"""A daemon that hangs up mid-transaction costs a libfido2 program an error status, not its life.

The socket adapter (integrations/c) wrote with write(2), so a peer that had gone away sent the
program SIGPIPE and killed it (exit 141 in a shell) — the libfido2 program linked against the
adapter, every program under `passkeyctl exec` (the preload), and ssh-keygen's ssh-sk-helper
(the ssh provider). Here a same-uid fake daemon on a temporary socket answers CTAPHID_INIT (and
getInfo), then stops reading before its answer goes out: shutdown(SHUT_RD) makes the client's
next send fail with EPIPE deterministically (Linux unix(7): a peer that shut down reading is a
broken pipe), however the two processes are scheduled.
"""

from __future__ import annotations

import os
import signal
import socket
import struct
import subprocess
import threading
from pathlib import Path

import pytest
from fido2 import cbor

from passkeyd_ssh import OpenSSH, provider
from test_libfido2_tools import under_exec

INTEROP = os.environ.get("LIBFIDO2_INTEROP", str(Path(__file__).parent / "build" / "libfido2_interop"))
REPORT = 64
BROADCAST = 0xFFFFFFFF
CTAPHID_INIT = 0x86
CTAPHID_CBOR = 0x90
CAPABILITY_CBOR = 0x04
AUTHENTICATOR_GET_INFO = 0x04


class HangingUpDaemon:
    """A fake passkeyd: one connection at a time, each answered up to `hang_up_after` ("init" or
    "info"), whose answer is sent only after the fake stopped reading; then it closes."""

    def __init__(self, folder: Path, hang_up_after: str):
        self.path = str(folder / "ctaphid.sock")
        self.hang_up_after = hang_up_after
        self.hung_up = 0
        self.listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.listener.bind(self.path)
        self.listener.listen(4)
        self.listener.settimeout(0.5)
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self.serve, daemon=True)
        self.thread.start()

    def serve(self) -> None:
        while not self.stopping.is_set():
            try:
                conn, _ = self.listener.accept()
            except (socket.timeout, OSError):
                continue
            with conn:
                conn.settimeout(30)
                try:
                    self.converse(conn)
                except (OSError, ValueError):
                    pass

    def read_message(self, conn: socket.socket) -> tuple[int, int, bytes]:
        """One CTAPHID message: its channel, command and payload (INIT frame, then CONT frames)."""
        first = self.read_report(conn)
        cid, cmd, length = struct.unpack(">IBH", first[:7])
        if not cmd & 0x80:
            raise ValueError("a continuation frame where a message starts")
        data = first[7:]
        while len(data) < length:
            data += self.read_report(conn)[5:]
        return cid, cmd, data[:length]

    @staticmethod
    def read_report(conn: socket.socket) -> bytes:
        report = b""
        while len(report) < REPORT:
            chunk = conn.recv(REPORT - len(report))
            if not chunk:
                raise ValueError("the client closed")
            report += chunk
        return report

    @staticmethod
    def send_message(conn: socket.socket, cid: int, cmd: int, payload: bytes) -> None:
        frames = [struct.pack(">IBH", cid, cmd, len(payload)) + payload[:57]]
        rest, seq = payload[57:], 0
        while rest:
            frames.append(struct.pack(">IB", cid, seq) + rest[:59])
            rest, seq = rest[59:], seq + 1
        conn.sendall(b"".join(frame.ljust(REPORT, b"\0") for frame in frames))

    def hang_up(self, conn: socket.socket) -> None:
        # From here on every send of the client fails with EPIPE (SIGPIPE unless MSG_NOSIGNAL).
        conn.shutdown(socket.SHUT_RD)
        self.hung_up += 1

    def converse(self, conn: socket.socket) -> None:
        cid, cmd, nonce = self.read_message(conn)
        if cid != BROADCAST or cmd != CTAPHID_INIT or len(nonce) != 8:
            raise ValueError("the client did not start with CTAPHID_INIT")
        channel = 0x01020304
        if self.hang_up_after == "init":
            self.hang_up(conn)
        # nonce, channel, CTAPHID protocol 2, device version 1.0.0, capabilities: CBOR.
        self.send_message(conn, BROADCAST, CTAPHID_INIT, nonce + struct.pack(">IBBBBB", channel, 2, 1, 0, 0, CAPABILITY_CBOR))
        if self.hang_up_after == "init":
            self.wait_for_eof(conn)
            return
        _, cmd, request = self.read_message(conn)
        if cmd != CTAPHID_CBOR or request[:1] != bytes([AUTHENTICATOR_GET_INFO]):
            raise ValueError("the client did not ask for getInfo second")
        info = {1: ["FIDO_2_0", "FIDO_2_1"], 3: bytes(16), 4: {"rk": True, "up": True, "plat": False},
                5: 1200, 6: [2, 1]}
        self.hang_up(conn)
        self.send_message(conn, channel, CTAPHID_CBOR, b"\0" + cbor.encode(info))
        self.wait_for_eof(conn)

    @staticmethod
    def wait_for_eof(conn: socket.socket) -> None:
        """Keep the connection until the client lets it go (its send failed, it closed or died)."""
        try:
            while conn.recv(REPORT):
                pass
        except OSError:
            pass

    def stop(self) -> None:
        self.stopping.set()
        self.listener.close()
        self.thread.join(10)


@pytest.fixture
def folder(tmp_path) -> Path:
    tmp_path.chmod(0o700)  # the adapter's folder rule: ours, and nobody else can write it
    return tmp_path


@pytest.fixture(params=["init", "info"])
def hanging_up(request, folder):
    fake = HangingUpDaemon(folder, request.param)
    yield fake
    fake.stop()


def not_killed(result: subprocess.CompletedProcess, what: str, must_fail: bool = True) -> str:
    """Everything a program said that ended with a status of its own (not a signal)."""
    out = (result.stdout if isinstance(result.stdout, str) else result.stdout.decode(errors="replace")) + \
          (result.stderr if isinstance(result.stderr, str) else result.stderr.decode(errors="replace"))
    assert result.returncode not in (-signal.SIGPIPE, 128 + signal.SIGPIPE), f"{what} died of SIGPIPE:\n{out}"
    assert result.returncode > 0 if must_fail else result.returncode >= 0, f"{what} exited {result.returncode}:\n{out}"
    return out


def test_a_program_on_the_adapter_gets_an_error_status(hanging_up):
    # libfido2_interop opens the socket with fido_dev_set_io_functions(&passkeyd_socket_io).
    done = subprocess.run([INTEROP, hanging_up.path], capture_output=True, text=True, timeout=120,
                          stdin=subprocess.DEVNULL)
    out = not_killed(done, "libfido2_interop")
    assert hanging_up.hung_up >= 1, "the fake never got far enough to hang up"
    # After INIT, libfido2 falls back to U2F when getInfo cannot be sent; after getInfo, the
    # registration's send fails.
    assert "FAIL" in out, out


def test_a_libfido2_tool_under_passkeyctl_exec_gets_an_error_status(hanging_up):
    done = under_exec(hanging_up.path, "fido2-token", "-I", f"passkeyd:{hanging_up.path}")
    # Hung up after INIT, the getInfo that cannot be sent makes libfido2 take the device for a
    # U2F one, which fido2-token -I describes from INIT alone (exit 0); after getInfo, the next
    # request cannot be sent and fido2-token says so.
    out = not_killed(done, "passkeyctl exec -- fido2-token -I", must_fail=hanging_up.hang_up_after == "info")
    assert hanging_up.hung_up >= 1, "the fake never got far enough to hang up"
    if hanging_up.hang_up_after == "info":
        assert "FIDO_ERR_TX" in out, out


def test_ssh_keygen_through_the_provider_says_it_lost_the_daemon(folder):
    fake = HangingUpDaemon(folder, "info")
    try:
        keys = folder / "keys"
        keys.mkdir(mode=0o700)
        tools = OpenSSH(keys, fake.path)
        done = tools.keygen("ecdsa-sk", keys / "id_lost")
    finally:
        fake.stop()
    out = not_killed(done, "ssh-keygen -t ecdsa-sk")
    assert fake.hung_up >= 1, "the fake never got far enough to hang up"
    # The provider's own sentence for FIDO_ERR_TX: ssh-sk-helper lived to say it.
    assert "passkeyd-sk: lost contact with passkeyd" in out, out
    assert not (keys / "id_lost").exists()


def test_the_preload_and_provider_are_built():
    """The two libraries these tests load exist (else the tests above would test nothing)."""
    assert os.path.exists(provider())
    assert os.path.exists(INTEROP), "make -C Tests/Interop program"
