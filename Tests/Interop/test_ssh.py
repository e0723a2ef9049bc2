"""OpenSSH security keys on passkeyd: Debian's unmodified ssh-keygen, ssh-add, ssh-agent, ssh
and sshd with libpasskeyd-sk.so (integrations/ssh) as their security-key provider."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from fido2.ctap2 import Ctap2
from fido2.ctap2.pin import ClientPin

from passkeyd_hid import REPO, daemon_binary
from passkeyd_pin import PIN, set_pin
from passkeyd_ssh import Agent, OpenSSH, Sshd, copy_key, free_port, provider, public_key, replace_key_handle
from test_socket_trust import NOBODY, finish, impostor, reachable  # noqa: F401  (reachable: a fixture)

KEY_TYPES = {"ecdsa-sk": "sk-ecdsa-sha2-nistp256@openssh.com", "ed25519-sk": "sk-ssh-ed25519@openssh.com"}
LABELS = {"ecdsa-sk": "ECDSA-SK", "ed25519-sk": "ED25519-SK"}


def ok(result: subprocess.CompletedProcess, what: str, *logs: str) -> str:
    """stdout of a command that must have succeeded; everything it said if not."""
    out, err = result.stdout.decode(errors="replace"), result.stderr.decode(errors="replace")
    assert result.returncode == 0, f"{what} exited {result.returncode}:\n{out}\n{err}\n" + "\n".join(logs)
    return out


def failed(result: subprocess.CompletedProcess, what: str) -> str:
    """stderr of a command that must have failed."""
    err = result.stderr.decode(errors="replace")
    assert result.returncode != 0, f"{what} succeeded:\n{result.stdout.decode(errors='replace')}\n{err}"
    return err


def still_serving(d) -> None:
    """The daemon answers getInfo on a fresh connection."""
    dev = d.device()
    try:
        assert "FIDO_2_1" in Ctap2(dev).get_info().versions
    finally:
        dev.close()


@pytest.fixture(scope="module")
def workdir(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("ssh")
    folder.chmod(0o700)
    return folder


@pytest.fixture(scope="module")
def pinned(daemon_factory):
    """passkeyd with a PIN and no built-in UV: resident and verify-required keys need the PIN."""
    d = daemon_factory("--presence", "auto", "--uv", "off")
    set_pin(d.socket, PIN)
    return d


@pytest.fixture(scope="module")
def openssh(workdir, pinned) -> OpenSSH:
    provider()  # built before the first timed command
    return OpenSSH(workdir, pinned.socket, PIN)


@pytest.fixture(scope="module")
def sshd(workdir):
    server = Sshd(workdir / "sshd").start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def keys(openssh, workdir) -> dict[str, Path]:
    """One non-resident key of each type, enrolled through `-w provider`."""
    made = {}
    for key_type in KEY_TYPES:
        path = workdir / f"id_{key_type.replace('-', '_')}"
        ok(openssh.keygen(key_type, path), f"ssh-keygen -t {key_type}")
        made[key_type] = path
    openssh.take_prompts()
    return made


def login(openssh: OpenSSH, sshd: Sshd, *options: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return openssh.run(*sshd.ssh_args(f"SecurityKeyProvider={provider()}", *options), env=env)


@pytest.mark.parametrize("key_type", KEY_TYPES)
def test_enrolled_key_logs_in_to_sshd(openssh, sshd, keys, key_type):
    key = keys[key_type]
    assert public_key(key).startswith(KEY_TYPES[key_type] + " ")
    sshd.authorize(public_key(key))
    out = ok(login(openssh, sshd, f"IdentityFile={key}", "IdentityAgent=none"), "ssh", sshd.log())
    assert out.strip() == "logged-in"
    assert f"Accepted publickey for {sshd.user} from 127.0.0.1" in sshd.log()
    assert any(f"Confirm user presence for key {LABELS[key_type]}" in p for p in openssh.take_prompts())


@pytest.mark.parametrize("key_type", KEY_TYPES)
def test_ssh_keygen_Y_signature_verifies(openssh, keys, workdir, key_type):
    key = keys[key_type]
    message = workdir / f"message-{key_type}"
    message.write_bytes(b"release 1.0, signed by a passkeyd security key\n")
    # The provider named by SSH_SK_PROVIDER this time.
    signing = openssh.env(SSH_SK_PROVIDER=provider())
    ok(openssh.run("ssh-keygen", "-Y", "sign", "-f", str(key), "-n", "file", str(message), env=signing), "-Y sign")
    signers = workdir / "allowed_signers"
    signers.write_text(f"release@example.com {public_key(key)}\n")
    verify = ["ssh-keygen", "-Y", "verify", "-f", str(signers), "-I", "release@example.com", "-n", "file",
              "-s", f"{message}.sig"]
    out = ok(openssh.run(*verify, stdin=message.read_bytes()), "-Y verify")
    assert f'Good "file" signature for release@example.com with {LABELS[key_type]} key' in out
    failed(openssh.run(*verify, stdin=b"release 1.1, not what was signed\n"), "-Y verify of other data")


def test_resident_keys_come_back_with_ssh_keygen_K(openssh, sshd, workdir):
    made = {}
    for key_type, user in (("ecdsa-sk", "alice"), ("ed25519-sk", "bob")):
        path = workdir / f"resident_{user}"
        ok(openssh.keygen(key_type, path, "resident", f"user={user}"), f"ssh-keygen -O resident ({key_type})")
        made[user] = (key_type, path)
    # A resident key on a PIN-protected authenticator needs the PIN: ssh-keygen asked for it.
    assert any("Enter PIN for authenticator" in p for p in openssh.take_prompts())

    empty = workdir / "new-machine"
    empty.mkdir(mode=0o700)
    # ssh-keygen -K writes the keys into its working directory.
    ok(openssh.run("ssh-keygen", "-K", "-w", provider(), "-N", "", cwd=empty), "ssh-keygen -K")
    assert any("Enter PIN for authenticator" in p for p in openssh.take_prompts())
    for user, (key_type, path) in made.items():
        back = empty / f"id_{key_type.replace('-', '_')}_rk_{user}"
        assert back.exists(), f"{back.name} not written; folder has {sorted(os.listdir(empty))}"
        assert public_key(back) == public_key(path)
    # A key brought back logs in like the original.
    back = empty / "id_ed25519_sk_rk_bob"
    sshd.authorize(public_key(back))
    ok(login(openssh, sshd, f"IdentityFile={back}", "IdentityAgent=none"), "ssh with a key from -K", sshd.log())


def test_ssh_add_K_loads_resident_keys_into_an_agent(openssh, sshd, workdir):
    path = workdir / "resident_agent"
    ok(openssh.keygen("ecdsa-sk", path, "resident", "user=agent"), "ssh-keygen -O resident")
    agent = Agent(workdir, openssh.env())
    try:
        with_agent = openssh.env(SSH_AUTH_SOCK=agent.socket)
        ok(openssh.run("ssh-add", "-K", "-S", provider(), env=with_agent), "ssh-add -K", agent.log())
        listed = ok(openssh.run("ssh-add", "-L", env=with_agent), "ssh-add -L")
        assert public_key(path) in listed
        assert any("Enter PIN for authenticator" in p for p in openssh.take_prompts())
        # ssh picks the agent's key by its public half; the agent signs through the provider.
        sshd.authorize(public_key(path))
        out = ok(login(openssh, sshd, f"IdentityFile={path}.pub", f"IdentityAgent={agent.socket}"),
                 "ssh through the agent", sshd.log(), agent.log())
        assert out.strip() == "logged-in"
    finally:
        agent.stop()


@pytest.mark.parametrize("key_type", KEY_TYPES)
def test_verify_required_key_asks_for_the_pin_and_logs_in(openssh, sshd, workdir, key_type):
    path = workdir / f"verify_{key_type}"
    ok(openssh.keygen(key_type, path, "verify-required"), "ssh-keygen -O verify-required")
    assert any("Enter PIN for authenticator" in p for p in openssh.take_prompts())
    # sshd's verify-required makes it check the signature's UV flag, not just any signature.
    sshd.authorize(f"verify-required {public_key(path)}")
    ok(login(openssh, sshd, f"IdentityFile={path}", "IdentityAgent=none"), "ssh", sshd.log())
    assert any(f"Enter PIN for {LABELS[key_type]} key" in p for p in openssh.take_prompts())


def test_enrolling_a_resident_key_again_asks_before_overwriting(openssh, workdir):
    first, second = workdir / "resident_dave", workdir / "resident_dave_again"
    ok(openssh.keygen("ed25519-sk", first, "resident", "user=dave"), "ssh-keygen -O resident")
    # ssh-keygen asks on its standard input; "n" keeps the key on the authenticator.
    refused = openssh.run("ssh-keygen", "-q", "-t", "ed25519-sk", "-w", provider(), "-f", str(second), "-N", "",
                          "-O", "resident", "-O", "user=dave", stdin=b"n\n")
    err = failed(refused, "ssh-keygen over an existing resident key")
    assert "A resident key scoped to 'ssh:' with user id 'dave' already exists" in err + refused.stdout.decode()
    assert not second.exists()
    overwritten = openssh.run("ssh-keygen", "-q", "-t", "ed25519-sk", "-w", provider(), "-f", str(second), "-N", "",
                              "-O", "resident", "-O", "user=dave", stdin=b"y\n")
    ok(overwritten, "ssh-keygen overwriting a resident key")
    assert public_key(second) != public_key(first)
    listed = workdir / "after-overwrite"
    listed.mkdir(mode=0o700)
    ok(openssh.run("ssh-keygen", "-K", "-w", provider(), "-N", "", cwd=listed), "ssh-keygen -K")
    assert public_key(listed / "id_ed25519_sk_rk_dave") == public_key(second)
    openssh.take_prompts()


def test_verify_required_with_built_in_uv_needs_no_pin(daemon_factory, workdir, sshd):
    """passkeyd --uv auto verifies the user itself (getPinUvAuthTokenUsingUvWithPermissions)."""
    folder = workdir / "built-in-uv"
    folder.mkdir(mode=0o700)
    d = daemon_factory("--presence", "auto", "--uv", "auto")
    tools = OpenSSH(folder, d.socket)  # no PIN to type: asking would fail
    key = folder / "id_uv"
    ok(tools.keygen("ecdsa-sk", key, "verify-required", "resident", "user=uv"), "ssh-keygen -O verify-required")
    sshd.authorize(f"verify-required {public_key(key)}")
    ok(login(tools, sshd, f"IdentityFile={key}", "IdentityAgent=none"), "ssh", sshd.log())
    # A resident key without verify-required is verified at enrolment the same way.
    ok(tools.keygen("ed25519-sk", folder / "id_resident", "resident", "user=uv2"), "ssh-keygen -O resident")
    assert not any("PIN" in p for p in tools.take_prompts())


def test_ssh_keygen_K_with_built_in_uv_needs_no_pin(daemon_factory, workdir, sshd):
    """-K on a passkeyd with no PIN: credential management under a token from built-in UV
    (getPinUvAuthTokenUsingUvWithPermissions, cm permission), no PIN asked for."""
    folder = workdir / "K-built-in-uv"
    folder.mkdir(mode=0o700)
    d = daemon_factory("--presence", "auto", "--uv", "auto")
    tools = OpenSSH(folder, d.socket)  # no PIN to type: asking would fail
    made = {}
    for key_type, user in (("ecdsa-sk", "erin"), ("ed25519-sk", "frank")):
        path = folder / f"resident_{user}"
        ok(tools.keygen(key_type, path, "resident", f"user={user}"), f"ssh-keygen -O resident ({key_type})")
        made[user] = (key_type, path)
    tools.take_prompts()
    restored = folder / "restored"
    restored.mkdir(mode=0o700)
    # ssh-keygen -K (OpenSSH 9.2) always asks for a PIN first; the person just presses Enter.
    tools.set_pin("")
    done = tools.run("ssh-keygen", "-K", "-w", provider(), "-N", "", cwd=restored)
    ok(done, "ssh-keygen -K", d.log())
    assert "needs passkeyd's PIN" not in done.stderr.decode(errors="replace")
    assert tools.take_prompts() == ["ask\tEnter PIN for authenticator: "]
    for user, (key_type, path) in made.items():
        back = restored / f"id_{key_type.replace('-', '_')}_rk_{user}"
        assert back.exists(), f"{back.name} not written; folder has {sorted(os.listdir(restored))}"
        assert public_key(back) == public_key(path)
    back = restored / "id_ecdsa_sk_rk_erin"
    sshd.authorize(public_key(back))
    ok(login(tools, sshd, f"IdentityFile={back}", "IdentityAgent=none"), "ssh with a key from -K", sshd.log())
    # ssh-add -K the same way, straight into an agent.
    agent = Agent(folder, tools.env())
    try:
        with_agent = tools.env(SSH_AUTH_SOCK=agent.socket)
        ok(tools.run("ssh-add", "-K", "-S", provider(), env=with_agent), "ssh-add -K", agent.log())
        listed = ok(tools.run("ssh-add", "-L", env=with_agent), "ssh-add -L")
        for _, path in made.values():
            assert public_key(path) in listed
    finally:
        agent.stop()


def test_ssh_keygen_K_falls_back_to_the_pin_when_built_in_uv_fails(daemon_factory, workdir):
    folder = workdir / "K-uv-denied"
    folder.mkdir(mode=0o700)
    d = daemon_factory("--presence", "auto", "--uv", "deny")
    set_pin(d.socket, PIN)
    tools = OpenSSH(folder, d.socket, PIN)
    key = folder / "resident_gina"
    # Enrolment: built-in UV fails, so ssh-keygen is told to ask for the PIN, and the PIN makes it.
    ok(tools.keygen("ecdsa-sk", key, "resident", "user=gina"), "ssh-keygen -O resident")
    assert any("Enter PIN for authenticator" in p for p in tools.take_prompts())
    # Enter at the PIN prompt: built-in UV is tried, fails, and the sentence says what to do.
    tools.set_pin("")
    err = failed(tools.run("ssh-keygen", "-K", "-w", provider(), "-N", "", cwd=folder), "ssh-keygen -K, UV denied")
    assert "passkeyd-sk: passkeyd's built-in user verification failed while listing resident keys" in err
    assert "passkeyd-sk: passkeyd has a PIN: OpenSSH's PIN prompt takes it instead" in err
    # The PIN typed: the keys come back.
    tools.set_pin(PIN)
    restored = folder / "restored"
    restored.mkdir(mode=0o700)
    ok(tools.run("ssh-keygen", "-K", "-w", provider(), "-N", "", cwd=restored), "ssh-keygen -K with the PIN", d.log())
    assert public_key(restored / "id_ecdsa_sk_rk_gina") == public_key(key)
    # A verify-required signature: built-in UV fails, ssh-keygen -Y asks for the PIN and signs.
    verified = folder / "verify_gina"
    ok(tools.keygen("ed25519-sk", verified, "verify-required"), "ssh-keygen -O verify-required")
    tools.take_prompts()
    message = folder / "message"
    message.write_bytes(b"signed with the PIN after built-in UV failed\n")
    ok(tools.run("ssh-keygen", "-Y", "sign", "-f", str(verified), "-n", "file", str(message),
                 env=tools.env(SSH_SK_PROVIDER=provider())), "-Y sign", d.log())
    assert any("Enter PIN for ED25519-SK key" in p for p in tools.take_prompts())


def test_ssh_keygen_K_without_pin_or_uv_says_what_to_set(daemon_factory, workdir):
    folder = workdir / "K-nothing"
    folder.mkdir(mode=0o700)
    d = daemon_factory("--presence", "auto", "--uv", "off")
    tools = OpenSSH(folder, d.socket)
    tools.set_pin("")
    err = failed(tools.run("ssh-keygen", "-K", "-w", provider(), "-N", "", cwd=folder), "ssh-keygen -K")
    assert ("passkeyd-sk: listing resident keys needs user verification, but passkeyd has neither a PIN nor "
            "built-in UV: set a PIN with `passkeyctl pin set`") in err


def test_a_wrong_pin_fails_the_login_and_ssh_says_so(openssh, sshd, workdir, pinned):
    path = workdir / "verify_wrong_pin"
    ok(openssh.keygen("ecdsa-sk", path, "verify-required"), "ssh-keygen -O verify-required")
    sshd.authorize(f"verify-required {public_key(path)}")
    openssh.set_pin("000000")
    try:
        err = failed(login(openssh, sshd, f"IdentityFile={path}", "IdentityAgent=none"), "ssh with a wrong PIN")
    finally:
        openssh.set_pin(PIN)
    assert "incorrect passphrase supplied to decrypt private key" in err  # ssh's words for SK_ERR_PIN_REQUIRED
    assert "passkeyd-sk: wrong PIN (" in err
    assert "Permission denied (publickey)" in err
    # The right PIN still works (and clears the wrong-PIN streak for the tests after this one).
    ok(login(openssh, sshd, f"IdentityFile={path}", "IdentityAgent=none"), "ssh with the PIN", sshd.log())
    still_serving(pinned)


def test_presence_denied_fails_the_login_but_a_no_touch_key_signs(daemon_factory, workdir, sshd):
    """Keys enrolled on one daemon, then used by a daemon on the same keystore that refuses every touch."""
    folder = workdir / "deny"
    folder.mkdir(mode=0o700)
    enrolling = daemon_factory("--presence", "auto", "--uv", "off")
    tools = OpenSSH(folder, enrolling.socket)
    touch, silent = folder / "id_touch", folder / "id_silent"
    ok(tools.keygen("ed25519-sk", touch), "ssh-keygen")
    ok(tools.keygen("ecdsa-sk", silent, "no-touch-required"), "ssh-keygen -O no-touch-required")
    assert enrolling.stop() == 0
    denying = daemon_factory("--presence", "deny", "--uv", "off", data_dir=enrolling.data_dir)
    tools = OpenSSH(folder, denying.socket)

    sshd.authorize(public_key(touch))
    err = failed(login(tools, sshd, f"IdentityFile={touch}", "IdentityAgent=none"), "ssh with presence denied")
    assert "Permission denied (publickey)" in err
    assert f'signing failed for ED25519-SK "{touch}"' in err
    assert "passkeyd-sk: the touch was refused" in err

    # no-touch-required asks passkeyd for no touch (up=false), and sshd accepts that only when told so.
    sshd.authorize(public_key(silent))
    err = failed(login(tools, sshd, f"IdentityFile={silent}", "IdentityAgent=none"), "ssh of an untouched signature")
    assert "Permission denied (publickey)" in err
    sshd.authorize(f"no-touch-required {public_key(silent)}")
    ok(login(tools, sshd, f"IdentityFile={silent}", "IdentityAgent=none"), "ssh with no-touch-required", sshd.log())
    still_serving(denying)


def test_the_ci_example_logs_in_to_an_sshd():
    """integrations/ssh/examples/sshd-login.sh, the recipe docs/integrations.md gives for CI, as written."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PASSKEYD_", "SSH_"))}
    env.update(PATH=f"{os.path.dirname(daemon_binary())}:{env['PATH']}", SK_PROVIDER=provider(), SSHD_PORT=str(free_port()))
    result = subprocess.run(["sh", str(REPO / "integrations" / "ssh" / "examples" / "sshd-login.sh")], env=env,
                            capture_output=True, timeout=180, stdin=subprocess.DEVNULL, start_new_session=True)
    out = ok(result, "sshd-login.sh")
    assert out.strip().endswith("with a passkeyd security key")


def test_no_daemon_names_the_fix(openssh, workdir):
    gone = workdir / "no-daemon" / "ctaphid.sock"
    err = failed(openssh.keygen("ecdsa-sk", workdir / "id_never", env=openssh.env(PASSKEYD_SOCKET=str(gone))),
                 "ssh-keygen without a daemon")
    assert f"passkeyd-sk: no passkeyd socket at {gone}" in err
    assert "passkeyd --detach" in err
    assert "device not found" in err  # ssh-keygen's own words for SK_ERR_DEVICE_NOT_FOUND
    assert not (workdir / "id_never").exists()


@pytest.mark.parametrize("handle", [b"\x01" * 64, b"\x7f", os.urandom(1500)], ids=["same-size", "one-byte", "1500-bytes"])
def test_a_garbage_key_handle_is_refused_and_the_daemon_keeps_serving(openssh, keys, workdir, pinned, handle):
    edited = workdir / "id_edited"
    copy_key(keys["ecdsa-sk"], edited)
    replace_key_handle(edited, handle)
    message = workdir / "message-edited"
    message.write_bytes(b"data\n")
    Path(f"{message}.sig").unlink(missing_ok=True)
    err = failed(openssh.run("ssh-keygen", "-Y", "sign", "-f", str(edited), "-n", "file", str(message),
                             env=openssh.env(SSH_SK_PROVIDER=provider())), "-Y sign with an edited key handle")
    assert "passkeyd-sk: passkeyd holds no key matching this key handle and application" in err
    assert not Path(f"{message}.sig").exists()
    still_serving(pinned)
    # The unedited key still signs.
    Path(f"{message}.sig").unlink(missing_ok=True)
    ok(openssh.run("ssh-keygen", "-Y", "sign", "-f", str(keys["ecdsa-sk"]), "-n", "file", str(message),
                   env=openssh.env(SSH_SK_PROVIDER=provider())), "-Y sign with the real key")


# The provider called as ssh-sk-helper calls it, for options OpenSSH's own tools never send.
CALL_ENROLL = textwrap.dedent("""
    import ctypes, sys
    class Option(ctypes.Structure):
        _fields_ = [("name", ctypes.c_char_p), ("value", ctypes.c_char_p), ("required", ctypes.c_uint8)]
    lib = ctypes.CDLL(sys.argv[1])
    options = (ctypes.POINTER(Option) * 3)()
    kept = [Option(b"device", sys.argv[2].encode(), 0), Option(sys.argv[3].encode(), b"1", int(sys.argv[4]))]
    for i, o in enumerate(kept):
        options[i] = ctypes.pointer(o)
    response = ctypes.c_void_p()
    challenge = b"\\0" * 32
    r = lib.sk_enroll(int(sys.argv[5]), challenge, 32, b"ssh:", 0x01, None, options, ctypes.byref(response))
    print(r, bool(response.value))
""")


def heard_by(pid: int, report: int, path: str) -> int:
    """What an impostor heard. An empty connection of our own ends its wait when the client
    never connected (if it did, the listener is gone and this one is refused)."""
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
            probe.connect(path)
    except OSError:
        pass
    return finish(pid, report)


def call_enroll(device: str, option: str, required: int, alg: int = 0) -> tuple[str, str]:
    result = subprocess.run([sys.executable, "-c", CALL_ENROLL, provider(), device, option, str(required), str(alg)],
                            capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    return result.stdout.strip(), result.stderr


def test_an_unknown_required_option_is_refused_before_any_byte(workdir):
    folder = workdir / "listener"
    folder.mkdir(mode=0o700)
    pid, path, report = impostor(str(folder), os.getuid())
    out, err = call_enroll(path, "frobnicate", 1)
    assert out == "-2 False"  # SSH_SK_ERR_UNSUPPORTED, no response
    assert 'the required option "frobnicate" is not one this provider knows' in err
    assert heard_by(pid, report, path) == 0


def test_an_unknown_key_type_is_refused(pinned):
    out, err = call_enroll(pinned.socket, "frobnicate", 0, alg=7)
    assert out == "-2 False"
    assert "passkeyd-sk: key type 7 is not one OpenSSH's sk-api defines" in err
    still_serving(pinned)


def test_a_relative_device_is_refused():
    out, err = call_enroll("ctaphid.sock", "frobnicate", 0)
    assert out == "-1 False"
    assert "passkeyd-sk: device=ctaphid.sock is not an absolute path to passkeyd's socket" in err


def test_an_unknown_optional_option_is_ignored(pinned):
    out, err = call_enroll(pinned.socket, "frobnicate", 0)
    assert out == "0 True", err


@pytest.mark.skipif(os.getuid() != 0, reason="serving a socket as another user needs root")
def test_a_socket_of_another_user_gets_no_byte(openssh, workdir, pinned, reachable):
    folder = reachable / "nobody"
    folder.mkdir(mode=0o700)
    os.chown(folder, NOBODY, NOBODY)
    pid, path, report = impostor(str(folder), NOBODY)
    err = failed(openssh.keygen("ecdsa-sk", workdir / "id_foreign", f"device={path}"), "ssh-keygen on a foreign socket")
    heard = heard_by(pid, report, path)
    assert heard == 0, f"the impostor heard {heard} bytes"
    assert f"refusing {path}: its folder belongs to uid {NOBODY}" in err
    assert f"passkeyd-sk: cannot use passkeyd at {path}" in err
    assert "device not found" in err
    still_serving(pinned)


@pytest.mark.skipif(os.getuid() != 0, reason="serving a socket as another user needs root")
def test_our_folder_with_another_users_listener_gets_no_byte(openssh, workdir, pinned, reachable):
    folder = reachable / "mine"
    folder.mkdir()
    folder.chmod(0o733)  # lets uid nobody bind its socket here…
    pid, path, report = impostor(str(folder), NOBODY)
    folder.chmod(0o711)  # …then only the listener's uid is wrong
    err = failed(openssh.keygen("ed25519-sk", workdir / "id_foreign2", f"device={path}"), "ssh-keygen on nobody's listener")
    heard = heard_by(pid, report, path)
    assert heard == 0, f"the impostor heard {heard} bytes"
    assert f"refusing {path}: it is served by uid {NOBODY}" in err
    still_serving(pinned)
