"""systemd socket activation without systemd: passkeyd started with a listening socket on
descriptor 3, LISTEN_FDS=1 and LISTEN_PID set to its own pid (sd_listen_fds(3)), as
passkeyd.socket starts passkeyd.service. The protocol is two variables and a descriptor,
so a fork/exec does what systemd does."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import tempfile
import time

import pytest
from fido2.server import Fido2Server
from fido2.webauthn import PublicKeyCredentialRpEntity, PublicKeyCredentialUserEntity

from conftest import make_client
from passkeyd_hid import daemon_binary, open_device, status

RP = PublicKeyCredentialRpEntity(id="example.com", name="Example")

#: `sh -c` sets LISTEN_PID to its own pid, which exec hands on to passkeyd: how a manager
#: names the one process the sockets are for, after fork and before exec.
SAME_PID = 'export LISTEN_PID=$$; exec "$0" "$@"'
OTHER_PID = 'export LISTEN_PID=1; exec "$0" "$@"'


class Activated:
    """A folder with a listening socket we hold, as the manager holds passkeyd.socket's."""

    def __init__(self, folder_mode: int = 0o700):
        self.folder = tempfile.mkdtemp(prefix="passkeyd-activated-")
        os.chmod(self.folder, folder_mode)
        self.path = os.path.join(self.folder, "ctaphid.sock")
        self.listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.listener.bind(self.path)
        self.listener.listen(16)
        self.data_dir = os.path.join(self.folder, "data")
        self.log_path = os.path.join(self.folder, "passkeyd.log")

    def spawn(self, *flags: str, script: str = SAME_PID, fds: str = "1", descriptor: int | None = None,
              env: dict | None = None) -> subprocess.Popen:
        handed = self.listener.fileno() if descriptor is None else descriptor
        environment = {k: v for k, v in os.environ.items() if not k.startswith(("PASSKEYD_", "LISTEN_"))}
        environment.update(env or {})
        environment["LISTEN_FDS"] = fds
        with open(self.log_path, "ab") as log:
            return subprocess.Popen(
                ["/bin/sh", "-c", script, daemon_binary(), "--data-dir", self.data_dir, *flags],
                env=environment, stdout=log, stderr=subprocess.STDOUT,
                pass_fds=(3,), preexec_fn=lambda: os.dup2(handed, 3))

    def log(self) -> str:
        with open(self.log_path, "rb") as f:
            return f.read().decode("utf-8", "replace")

    def close(self) -> None:
        self.listener.close()
        subprocess.run(["rm", "-rf", self.folder], check=False)


@pytest.fixture
def activated():
    made: list[Activated] = []

    def make(**kwargs) -> Activated:
        a = Activated(**kwargs)
        made.append(a)
        return a

    yield make
    for a in made:
        a.close()


def stop(proc: subprocess.Popen) -> int:
    proc.send_signal(signal.SIGTERM)
    return proc.wait(30)


def register_and_sign_in(path: str) -> None:
    server = Fido2Server(RP)
    dev = open_device(path)
    try:
        client = make_client(dev)
        user = PublicKeyCredentialUserEntity(id=os.urandom(16), name="alice")
        options, state = server.register_begin(user, resident_key_requirement="required")
        auth_data = server.register_complete(state, client.make_credential(options.public_key))
        options, state = server.authenticate_begin([auth_data.credential_data])
        result = client.get_assertion(options.public_key).get_response(0)
        server.authenticate_complete(state, [auth_data.credential_data], result)
    finally:
        dev.close()


def test_an_inherited_socket_is_served_and_outlives_the_daemon(activated, tmp_path):
    a = activated()
    # passkeyd's own default would be under this runtime folder; the inherited socket wins.
    runtime = tmp_path / "runtime"
    runtime.mkdir(mode=0o700)
    proc = a.spawn(env={"XDG_RUNTIME_DIR": str(runtime)})
    try:
        # Connecting works at once: the socket listens before passkeyd runs, as under systemd.
        register_and_sign_in(a.path)
        dev = open_device(a.path)
        assert status(dev)["socket"] == a.path
        dev.close()
        assert not (runtime / "passkeyd").exists(), "passkeyd bound no socket of its own"
    finally:
        assert stop(proc) == 0, a.log()
    assert "activated=true" in a.log()
    assert os.path.exists(a.path), "the socket file is the manager's and stays"

    # The next connection starts the next passkeyd on the same socket and keystore.
    proc = a.spawn()
    try:
        dev = open_device(a.path)
        assert status(dev)["pid"] == proc.pid
        dev.close()
    finally:
        assert stop(proc) == 0, a.log()


def test_listen_variables_for_another_process_are_ignored(activated):
    a = activated()
    own = os.path.join(a.folder, "own.sock")
    proc = a.spawn("--socket", own, script=OTHER_PID)
    try:
        deadline = time.monotonic() + 30
        while not os.path.exists(own):
            assert proc.poll() is None and time.monotonic() < deadline, a.log()
            time.sleep(0.05)
        dev = open_device(own)
        assert status(dev)["socket"] == own, "it bound its own socket, as without a manager"
        dev.close()
    finally:
        assert stop(proc) == 0, a.log()
    assert "activated=false" in a.log()


@pytest.mark.parametrize(
    "case, expected",
    [
        ("two", "passed LISTEN_FDS=2; passkeyd serves exactly one socket"),
        ("pipe", "descriptor 3, which is not a listening Unix stream socket"),
        ("unsafe", "unsafe socket directory"),
    ],
)
def test_what_passkeyd_cannot_serve_is_refused_with_a_sentence(activated, case, expected):
    a = activated(folder_mode=0o777 if case == "unsafe" else 0o700)
    read_end, write_end = os.pipe()
    try:
        proc = a.spawn(fds="2" if case == "two" else "1", descriptor=read_end if case == "pipe" else None)
        code = proc.wait(30)
    finally:
        os.close(read_end)
        os.close(write_end)
    assert code != 0
    assert expected in a.log(), a.log()


def test_socket_activation_with_detach_is_refused(activated):
    a = activated()
    proc = a.spawn("--detach")
    assert proc.wait(30) != 0
    assert "a socket-activated passkeyd runs in the foreground" in a.log()
