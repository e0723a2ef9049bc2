"""Hardening round 3 (issue 33) against the real passkeyd and passkeyctl.

1: private keys leave only when the daemon's owner opted in, and once a PIN is set only for a
   token the PIN bought (built-in UV under --uv auto is no boundary against the user's processes).
2: `passkeyctl export -o` never writes into a file someone else made or linked.
7: every prompt answer is logged with the prompt, its RP and who answered.
5: every installation shows the one U2F batch attestation certificate.
9: sign-ins go on when the disk fills (the keystore's reserve).
4: the daemon is not dumpable and writes no core file.
11: PASSKEYCTL_PIN is gone from passkeyctl's environment once read; --pin-file is refused when
   others can read a regular file, and a pipe still works.
"""

from __future__ import annotations

import contextlib
import json
import os
import pwd
import subprocess
import threading
import time

import pytest
from fido2 import cbor
from fido2.ctap import CtapError
from fido2.ctap2 import Ctap2
from fido2.ctap2.pin import ClientPin, PinProtocolV2

from passkeyd_hid import Daemon, daemon_binary
from passkeyd_pin import PIN, passkeyctl, passkeyctl_binary, set_pin
from test_test_controls import Account

EXPORT = 0xB0  # passkeydExport (docs/vendor-commands.md)


def export_with_keys(dev, token_from: str) -> list:
    """The export vendor command with includePrivateKeys, authenticated by a `cm` token obtained
    with the PIN or with built-in UV, as any process of the user can send it."""
    ctap = Ctap2(dev)
    protocol = PinProtocolV2()
    client_pin = ClientPin(ctap, protocol)
    if token_from == "pin":
        token = client_pin.get_pin_token(PIN, ClientPin.PERMISSION.CREDENTIAL_MGMT)
    else:
        token = client_pin.get_uv_token(ClientPin.PERMISSION.CREDENTIAL_MGMT)
    parameters = {2: True}
    param = protocol.authenticate(token, bytes([EXPORT]) + cbor.encode(parameters))
    return ctap.send_cbor(EXPORT, {1: parameters, 2: protocol.VERSION, 3: param})[1]


def with_account(daemon, name: str) -> Account:
    dev = daemon.device()
    try:
        return Account(dev, name)
    finally:
        dev.close()


def test_private_keys_stay_in_unless_the_daemon_allows_export(daemon_factory):
    daemon = daemon_factory("--presence", "auto", "--uv", "auto")
    account = with_account(daemon, "closed")
    refused = passkeyctl(daemon.socket, "export", "--include-private-keys", pin=None)
    assert refused.returncode != 0 and refused.stdout == ""
    assert "--allow-private-key-export" in refused.stderr and "PASSKEYD_ALLOW_PRIVATE_KEY_EXPORT=1" in refused.stderr
    dev = daemon.device()
    try:
        with pytest.raises(CtapError) as refusal:
            export_with_keys(dev, "uv")
        assert refusal.value.code == CtapError.ERR.OPERATION_DENIED
    finally:
        dev.close()
    public = json.loads(passkeyctl(daemon.socket, "export", pin=None).stdout)
    assert [c["rpId"] for c in public] == [account.rp_id] and "privateKey" not in public[0], "the public part still leaves"
    assert "--allow-private-key-export" in daemon.log(), "the daemon's log says how to allow it"


def test_once_a_pin_is_set_only_a_pin_token_releases_private_keys(daemon_factory):
    daemon = daemon_factory("--presence", "auto", "--uv", "auto", "--allow-private-key-export")
    with_account(daemon, "pinned")
    dev = daemon.device()
    try:
        ClientPin(Ctap2(dev)).set_pin(PIN)
        with pytest.raises(CtapError) as refusal:
            export_with_keys(dev, "uv")
        assert refusal.value.code == CtapError.ERR.UNAUTHORIZED_PERMISSION
        records = export_with_keys(dev, "pin")
        assert len(records) == 1 and records[0][6], "the PIN's token gets the private key"
    finally:
        dev.close()
    assert passkeyctl(daemon.socket, "export", "--include-private-keys", pin=PIN).returncode == 0


@pytest.fixture
def exporting(daemon_factory):
    daemon = daemon_factory("--presence", "auto", "--uv", "auto", "--allow-private-key-export")
    with_account(daemon, "filed")
    return daemon


def export_to(daemon, path) -> subprocess.CompletedProcess:
    return passkeyctl(daemon.socket, "export", "--include-private-keys", "--output", str(path), pin=None)


def test_export_refuses_a_file_another_user_made(exporting, tmp_path):
    planted = tmp_path / "keys.json"
    planted.write_text("")
    nobody = pwd.getpwnam("nobody")
    os.chown(planted, nobody.pw_uid, nobody.pw_gid)
    os.chmod(planted, 0o666)
    result = export_to(exporting, planted)
    assert result.returncode != 0 and "belongs to another user" in result.stderr, result.stderr
    assert planted.read_text() == "", "not one byte went into the planted file"
    assert os.stat(planted).st_uid == nobody.pw_uid


def test_export_refuses_a_file_with_another_link(exporting, tmp_path):
    target = tmp_path / "keys.json"
    target.write_text("")
    os.chmod(target, 0o600)
    os.link(target, tmp_path / "elsewhere")
    result = export_to(exporting, target)
    assert result.returncode != 0 and "other names" in result.stderr, result.stderr
    assert (tmp_path / "elsewhere").read_text() == ""


def test_export_creates_a_private_file_and_replaces_only_its_own(exporting, tmp_path):
    target = tmp_path / "keys.json"
    old = os.umask(0)  # even with no umask at all the file is born private
    try:
        assert export_to(exporting, target).returncode == 0
    finally:
        os.umask(old)
    assert os.stat(target).st_mode & 0o777 == 0o600
    assert json.loads(target.read_text())[0]["privateKey"]
    assert export_to(exporting, target).returncode == 0, "the user's own earlier export is replaced"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["keys.json"], "no temporary file left behind"


def test_pin_file_readable_by_others_is_refused_and_a_pipe_is_read(daemon_factory, tmp_path):
    daemon = daemon_factory("--presence", "auto", "--uv", "auto")
    set_pin(daemon.socket, PIN)
    exposed = tmp_path / "pin"
    exposed.write_text(PIN + "\n")
    os.chmod(exposed, 0o644)
    result = passkeyctl(daemon.socket, "--pin-file", str(exposed), "list", pin=None)
    assert result.returncode != 0 and "accessible by other users" in result.stderr and "chmod 600" in result.stderr
    os.chmod(exposed, 0o600)
    assert passkeyctl(daemon.socket, "--pin-file", str(exposed), "list", pin=None).returncode == 0
    read, write = os.pipe()
    os.write(write, (PIN + "\n").encode())
    os.close(write)
    try:
        piped = subprocess.run([passkeyctl_binary(), "--socket", daemon.socket, "--pin-file", f"/dev/fd/{read}", "list"],
                               capture_output=True, text=True, timeout=60, pass_fds=(read,), stdin=subprocess.DEVNULL,
                               env={k: v for k, v in os.environ.items() if not k.startswith(("PASSKEYCTL_", "PASSKEYD_"))})
    finally:
        os.close(read)
    assert piped.returncode == 0, piped.stderr


def test_passkeyctl_pin_leaves_the_environment_once_read(daemon_factory):
    """While `bio enroll` waits for a sample (after it used the PIN), its /proc/PID/environ holds
    no PASSKEYCTL_PIN: the bytes a child or another reader of the block would see are wiped."""
    daemon = daemon_factory("--presence", "auto", "--uv", "prompt", "--bio")
    dev = daemon.device()
    try:
        ClientPin(Ctap2(dev)).set_pin("73918264")
    finally:
        dev.close()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PASSKEYCTL_", "PASSKEYD_"))}
    env["PASSKEYCTL_PIN"] = "73918264"
    enroll = subprocess.Popen([passkeyctl_binary(), "--socket", daemon.socket, "bio", "enroll"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL, env=env)
    try:
        deadline = time.monotonic() + 60
        while json.loads(passkeyctl(daemon.socket, "status", "--json", pin=None).stdout).get("promptId") is None:
            assert enroll.poll() is None and time.monotonic() < deadline, "bio enroll never asked for a sample"
            time.sleep(0.05)
        with open(f"/proc/{enroll.pid}/environ", "rb") as f:
            block = f.read()
        assert b"PASSKEYCTL_PIN" not in block and b"73918264" not in block
    finally:
        enroll.kill()
        enroll.wait()


def wait_for_prompt(daemon, deadline: float) -> int:
    while (prompt := json.loads(passkeyctl(daemon.socket, "status", "--json", pin=None).stdout).get("promptId")) is None:
        assert time.monotonic() < deadline, "no prompt appeared"
        time.sleep(0.05)
    return prompt


@pytest.mark.parametrize("answer,logged", [("approve", "prompt approved"), ("deny", "prompt denied")])
def test_every_prompt_answer_is_logged_with_prompt_rp_and_requester(daemon_factory, answer, logged):
    """Any process of the user can answer a prompt (docs/vendor-commands.md); the log says which did."""
    daemon = daemon_factory("--presence", "prompt", "--uv", "off")
    dev = daemon.device()
    outcome: list = []

    def register():
        try:
            Ctap2(dev).make_credential(os.urandom(32), {"id": "logged.example", "name": "Logged"},
                                       {"id": os.urandom(16), "name": "u"}, [{"type": "public-key", "alg": -7}])
            outcome.append("made")
        except CtapError as e:
            outcome.append(e.code)

    thread = threading.Thread(target=register)
    thread.start()
    try:
        prompt = wait_for_prompt(daemon, time.monotonic() + 60)
        assert passkeyctl(daemon.socket, answer, pin=None).returncode == 0
    finally:
        thread.join(timeout=60)
        dev.close()
    assert outcome == (["made"] if answer == "approve" else [CtapError.ERR.OPERATION_DENIED])
    line = next((l for l in daemon.log().splitlines() if logged in l), None)
    assert line is not None, daemon.log()
    for field in (f"prompt={prompt}", "rp=logged.example", "kind=presence", "named=true", "(passkeyctl)"):
        assert field in line, line


@contextlib.contextmanager
def own_daemon(socket_path: str, data_dir: str, env: dict, **popen):
    """passkeyd started here rather than by `Daemon` (which runs it as root with a clean
    PASSKEYD_* environment): yields the process once its socket exists; it must exit 0 on SIGTERM."""
    proc = subprocess.Popen([daemon_binary(), "--socket", socket_path, "--data-dir", data_dir, "--presence", "auto", "--uv", "auto"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, **popen)
    try:
        deadline = time.monotonic() + 60
        while not os.path.exists(socket_path):
            assert proc.poll() is None and time.monotonic() < deadline, "the daemon never bound its socket"
            time.sleep(0.05)
        yield proc
        proc.send_signal(15)
        assert proc.wait(30) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_the_daemon_is_not_dumpable_and_writes_no_core(tmp_path):
    """F4: another process of the user cannot read the daemon's memory through /proc or ptrace,
    and a crash leaves no core file. Run as `nobody`, so that a dumpable process's /proc files
    would be nobody's: a non-dumpable one's belong to root."""
    import shutil
    import tempfile

    nobody = pwd.getpwnam("nobody")
    home = tempfile.mkdtemp(prefix="passkeyd-nobody-")
    os.chown(home, nobody.pw_uid, nobody.pw_gid)
    socket_path = os.path.join(home, "ctaphid.sock")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PASSKEYD_", "XDG_"))}
    env["HOME"] = home
    try:
        with own_daemon(socket_path, os.path.join(home, "data"), env, user=nobody.pw_uid, group=nobody.pw_gid) as proc:
            assert os.stat(f"/proc/{proc.pid}/status").st_uid == 0, "PR_SET_DUMPABLE 0: /proc/PID is root's"
            with open(f"/proc/{proc.pid}/limits") as f:
                core = next(line for line in f if line.startswith("Max core file size"))
            assert core.split()[4:6] == ["0", "0"], core
    finally:
        shutil.rmtree(home, ignore_errors=True)


def test_two_installations_show_the_same_u2f_attestation_certificate(daemon_factory):
    """F5: the fido-u2f certificate is the model's batch certificate, not the installation's,
    so two keystores (two users, or one user's two machines) cannot be told apart by it."""
    from fido2.ctap1 import Ctap1

    certificates = []
    for _ in range(2):
        daemon = daemon_factory("--presence", "auto", "--uv", "auto")
        dev = daemon.device()
        try:
            client_param, app_param = os.urandom(32), os.urandom(32)
            registration = Ctap1(dev).register(client_param, app_param)
            registration.verify(app_param, client_param)  # signed by the certificate's key
            certificates.append(registration.certificate)
        finally:
            dev.close()
    assert certificates[0] == certificates[1]


def test_sign_ins_go_on_when_the_disk_fills(tmp_path):
    """F9: on a full 16 MiB tmpfs a sign-in whose counter needs a new mark still signs, with a
    counter above every earlier one, because the keystore gives up its reserve; registrations
    are refused as before, and after a restart every counter is above what was signed."""
    from test_keystore_faults import RP, fill, mounted, register
    from test_keystore_refusal import fresh

    def sign_in(dev, credential_id: bytes) -> int:
        assertion = Ctap2(dev).get_assertion(RP["id"], os.urandom(32), [{"type": "public-key", "id": credential_id}])
        return assertion.auth_data.counter

    with mounted(str(tmp_path / "fs"), "-t", "tmpfs", "-o", "size=16m,mode=0700", "tmpfs") as fs:
        data_dir = os.path.join(fs, "data")
        daemon = Daemon("--presence", "auto", "--uv", "off", data_dir=data_dir, workdir=fresh(tmp_path, "d")).start()
        signed: dict[bytes, int] = {}
        try:
            dev = daemon.device()
            try:
                # Stored and flushed, but never signed with: each one's first sign-in needs a mark.
                ids = [register(dev, f"reserve-{n}") for n in range(3)]
                assert os.path.getsize(os.path.join(data_dir, "keystore.reserve")) == 1 << 20
                fill(os.path.join(fs, "ballast"))
                # Registrations never spend the reserve: the record log's room takes a batch,
                # SQLite's next one finds the disk full, and the reserve is still held.
                with pytest.raises(CtapError) as refused:
                    for n in range(1100):
                        register(dev, f"late-{n}")
                assert refused.value.code == CtapError.ERR.KEY_STORE_FULL
                assert os.path.getsize(os.path.join(data_dir, "keystore.reserve")) == 1 << 20
                # A sign-in whose counter needs a new mark gives it up and signs.
                for credential_id in ids:
                    signed[credential_id] = sign_in(dev, credential_id)
                    assert sign_in(dev, credential_id) > signed[credential_id]
                    signed[credential_id] = sign_in(dev, credential_id)
                assert "reserve was given up" in daemon.log()
                assert not os.path.exists(os.path.join(data_dir, "keystore.reserve"))
            finally:
                dev.close()
        finally:
            assert daemon.stop() == 0
        os.unlink(os.path.join(fs, "ballast"))
        again = Daemon("--presence", "auto", "--uv", "off", data_dir=data_dir, workdir=fresh(tmp_path, "e")).start()
        try:
            dev = again.device()
            try:
                for credential_id, last in signed.items():
                    assert sign_in(dev, credential_id) > last, "no count is taken back by the restart"
            finally:
                dev.close()
            assert os.path.getsize(os.path.join(data_dir, "keystore.reserve")) == 1 << 20, "held again once there is room"
        finally:
            assert again.stop() == 0


def test_passkeydemo_refuses_a_state_folder_another_user_owns(daemon_factory, tmp_path):
    """F2, for passkeydemo: its courier session token and database are written only into a folder
    of the user's own that nobody else can write to."""
    from test_demo_interactive import Terminal

    daemon = daemon_factory("--presence", "auto", "--uv", "auto")
    planted = tmp_path / "state"
    planted.mkdir()
    nobody = pwd.getpwnam("nobody")
    os.chown(planted, nobody.pw_uid, nobody.pw_gid)
    os.chmod(tmp_path, 0o755)
    t = Terminal("--socket", daemon.socket, state_dir=str(planted))
    t.read_until("is not a folder of yours that only you can write to")
    assert t.wait() != 0
    assert list(planted.iterdir()) == [], "nothing was written into it"


def test_the_environment_variable_allows_export_as_the_flag_does(tmp_path):
    """PASSKEYD_ALLOW_PRIVATE_KEY_EXPORT=1 is --allow-private-key-export (passkeyd --help)."""
    socket_path = str(tmp_path / "ctaphid.sock")
    env = {k: v for k, v in os.environ.items() if not k.startswith("PASSKEYD_")}
    env["PASSKEYD_ALLOW_PRIVATE_KEY_EXPORT"] = "1"
    with own_daemon(socket_path, str(tmp_path / "data"), env):
        from passkeyd_hid import open_device
        dev = open_device(socket_path)
        try:
            Account(dev, "envexport")
        finally:
            dev.close()
        exported = passkeyctl(socket_path, "export", "--include-private-keys", pin=None)
        assert exported.returncode == 0, exported.stderr
        assert json.loads(exported.stdout)[0]["privateKey"]
