"""A client speaks only to our own daemon (hardening finding 1): passkeyctl and every
PasskeyClient user check the socket's folder and the uid serving it before the first byte,
and refuse with a sentence naming the path and the owner found."""

import os
import pathlib
import shutil
import signal
import socket
import subprocess
import tempfile
import time

import pytest

PASSKEYCTL = os.environ.get("PASSKEYCTL_BIN", os.path.join(os.path.dirname(__file__), "../../.build/debug/passkeyctl"))
NOBODY = 65534


def impostor(folder, uid):
    """A listener serving `folder/ctaphid.sock` as `uid` that reports how many bytes it heard."""
    path = os.path.join(folder, "ctaphid.sock")
    ready_r, ready_w = os.pipe()
    report_r, report_w = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            os.close(ready_r)
            os.close(report_r)
            if uid != os.getuid():
                os.setgid(uid)
                os.setuid(uid)
            server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            server.bind(path)
            os.chmod(path, 0o777)
            server.listen(4)
            os.write(ready_w, b"1")
            heard = 0
            server.settimeout(20)
            try:
                connection, _ = server.accept()
                connection.settimeout(2)
                while True:
                    chunk = connection.recv(4096)
                    if not chunk:
                        break
                    heard += len(chunk)
            except (socket.timeout, OSError):
                pass
            os.write(report_w, str(heard).encode())
        finally:
            os._exit(0)
    os.close(ready_w)
    os.close(report_w)
    assert os.read(ready_r, 1) == b"1", "the impostor did not start"
    os.close(ready_r)
    return pid, path, report_r


@pytest.fixture
def reachable():
    """A folder uid nobody can reach (pytest's own folders are 0700 all the way down)."""
    base = tempfile.mkdtemp(prefix="passkeyd-trust-")
    os.chmod(base, 0o755)
    yield pathlib.Path(base)
    shutil.rmtree(base, ignore_errors=True)


def passkeyctl(socket_path, *args):
    return subprocess.run([PASSKEYCTL, "--socket", socket_path, *args], capture_output=True, timeout=60)


def finish(pid, report):
    """Waits for the impostor to report (it stops when the client hangs up), then reads it."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        done, _ = os.waitpid(pid, os.WNOHANG)
        if done:
            break
        time.sleep(0.05)
    else:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        raise AssertionError("the impostor never heard the client hang up")
    heard = os.read(report, 64)
    os.close(report)
    return int(heard)


@pytest.mark.skipif(os.getuid() != 0, reason="serving a socket as another user needs root")
def test_a_socket_served_by_another_user_gets_no_byte(reachable):
    folder = reachable / "shared"
    folder.mkdir(mode=0o700)
    os.chown(folder, NOBODY, NOBODY)
    pid, path, report = impostor(str(folder), NOBODY)
    done = passkeyctl(path, "list")
    heard = finish(pid, report)
    assert done.returncode == 2, done.stderr
    sentence = done.stderr.decode()
    assert f"Refusing the socket at {path}" in sentence
    assert f"uid {NOBODY}" in sentence
    assert heard == 0, f"the impostor heard {heard} bytes"


@pytest.mark.skipif(os.getuid() != 0, reason="serving a socket as another user needs root")
def test_our_own_folder_but_another_users_listener_is_refused(reachable):
    # The folder passes (ours, 0711 so the impostor can reach it); the kernel's SO_PEERCRED does not.
    folder = reachable / "mine"
    folder.mkdir(mode=0o711)
    os.chmod(folder, 0o733)  # lets uid nobody create its socket here…
    pid, path, report = impostor(str(folder), NOBODY)
    os.chmod(folder, 0o711)  # …then nobody else can write it: only the listener's uid is wrong.
    done = passkeyctl(path, "list", "--json")
    heard = finish(pid, report)
    assert done.returncode == 2
    assert b'"untrusted-socket"' in done.stdout
    assert f"served by uid {NOBODY}".encode() in done.stdout
    assert heard == 0


def test_a_folder_others_can_write_is_refused_before_a_byte(tmp_path):
    folder = tmp_path / "open"
    folder.mkdir()
    os.chmod(folder, 0o777)
    pid, path, report = impostor(str(folder), os.getuid())
    done = passkeyctl(path, "info")
    heard = finish(pid, report)
    assert done.returncode == 2
    assert f"Refusing the socket at {path}: its folder {folder} can be written by other users (mode 777)".encode() in done.stderr
    assert heard == 0
