"""The shipped python-fido2 adapter (integrations/python, `pip install ./integrations/python`):
its pytest fixture, its default socket rule, its refusals, and that it packages."""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile

import pytest
from fido2.client import ClientError
from fido2.server import Fido2Server
from fido2.webauthn import PublicKeyCredentialRpEntity, PublicKeyCredentialUserEntity

import passkeyd_fido2
from conftest import make_client
from passkeyd_hid import REPO

RP = PublicKeyCredentialRpEntity(id="example.com", name="Example")


def test_the_fixture_device_registers_and_signs_in(passkeyd_device, passkeyd_daemon):
    """What a project's own test does with the plugin: a fresh daemon, a verifying server."""
    server = Fido2Server(RP)
    client = make_client(passkeyd_device)
    user = PublicKeyCredentialUserEntity(id=os.urandom(16), name="alice", display_name="Alice")
    options, state = server.register_begin(user, resident_key_requirement="required", user_verification="required")
    auth_data = server.register_complete(state, client.make_credential(options.public_key))
    options, state = server.authenticate_begin(user_verification="required")
    result = client.get_assertion(options.public_key).get_response(0)
    server.authenticate_complete(state, [auth_data.credential_data], result)
    assert result.response.user_handle == user.id
    assert passkeyd_fido2.status(passkeyd_device)["socket"] == passkeyd_daemon.socket
    assert passkeyd_daemon.data_dir.startswith(passkeyd_daemon.workdir), "a data folder of its own"


@pytest.mark.parametrize("passkeyd_flags", [("--presence", "deny", "--uv", "off")])
def test_the_fixture_takes_the_daemons_flags(passkeyd_device):
    server = Fido2Server(RP)
    options, _ = server.register_begin(PublicKeyCredentialUserEntity(id=b"bob", name="bob"))
    with pytest.raises(ClientError):
        make_client(passkeyd_device).make_credential(options.public_key)


def test_open_device_without_a_path_follows_the_default_socket_rule(passkeyd_daemon, monkeypatch):
    monkeypatch.setenv("PASSKEYD_SOCKET", passkeyd_daemon.socket)
    dev = passkeyd_fido2.open_device()
    try:
        assert passkeyd_fido2.status(dev)["pid"] == passkeyd_daemon.proc.pid
    finally:
        dev.close()


def test_the_default_socket_rule_is_passkeyds():
    uid = os.getuid()
    assert passkeyd_fido2.default_socket_path({"PASSKEYD_SOCKET": "/x/s.sock", "XDG_RUNTIME_DIR": "/run/user/7"}) == "/x/s.sock"
    assert passkeyd_fido2.default_socket_path({"XDG_RUNTIME_DIR": "/run/user/7"}) == "/run/user/7/passkeyd/ctaphid.sock"
    assert passkeyd_fido2.default_socket_path({"XDG_RUNTIME_DIR": ""}) == f"/tmp/passkeyd-{uid}/ctaphid.sock"
    assert passkeyd_fido2.default_socket_path({}) == f"/tmp/passkeyd-{uid}/ctaphid.sock"


def test_a_socket_in_a_folder_others_can_write_is_refused_before_connecting(tmp_path):
    folder = tmp_path / "open"
    folder.mkdir()
    os.chmod(folder, 0o777)
    with pytest.raises(passkeyd_fido2.UntrustedSocket, match="can be written by other users"):
        passkeyd_fido2.open_device(str(folder / "ctaphid.sock"))


def test_it_builds_as_a_wheel_with_the_pytest_plugin(tmp_path):
    """`pip install ./integrations/python` installs this: the module and the plugin's entry point."""
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation", "-w", str(tmp_path),
         str(REPO / "integrations" / "python")],
        check=True, capture_output=True, timeout=120, cwd=tmp_path)
    [wheel] = list(tmp_path.glob("passkeyd-*.whl"))
    with zipfile.ZipFile(wheel) as z:
        names = z.namelist()
        assert {"passkeyd/__init__.py", "passkeyd/testing.py", "passkeyd/pytest_plugin.py"} <= set(names)
        # The package's earlier name stays importable.
        assert "passkeyd_fido2/__init__.py" in names and "passkeyd_fido2/pytest_plugin.py" in names
        entry_points = z.read(next(n for n in names if n.endswith("entry_points.txt"))).decode()
    assert "[pytest11]" in entry_points and "passkeyd = passkeyd.pytest_plugin" in entry_points
