"""libfido2's own programs (Debian fido2-tools) and OpenSSH's built-in security-key provider,
unmodified, on the real daemon through `passkeyctl exec` (libpasskeyd-preload.so)."""

from __future__ import annotations

import base64
import json
import os
import shutil
import socket
import subprocess

import pytest
from fido2.ctap2 import Ctap2

from test_socket_trust import NOBODY, finish, impostor, reachable  # noqa: F401  (reachable is a fixture)

PASSKEYCTL = os.environ.get("PASSKEYCTL_BIN", os.path.join(os.path.dirname(__file__), "../../.build/debug/passkeyctl"))
WITH_INFO = os.environ.get("LIBFIDO2_WITH_INFO", os.path.join(os.path.dirname(__file__), "build/libfido2_with_info"))
PIN = "271828"
PRODUCT = "(passkeyd software FIDO2 authenticator)"


def passkeyctl(socket_path: str, *args: str, stdin: str | None = None, env: dict | None = None) -> subprocess.CompletedProcess:
    """passkeyctl on `socket_path`, in a session of its own: with no terminal, fido2-tools read
    the PIN from standard input (readpassphrase) instead of waiting on /dev/tty."""
    return subprocess.run(
        [PASSKEYCTL, "--socket", socket_path, *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
        start_new_session=True,
        env=env,
    )


def under_exec(socket_path: str, *command: str, stdin: str | None = None, env: dict | None = None) -> subprocess.CompletedProcess:
    return passkeyctl(socket_path, "exec", "--", *command, stdin=stdin, env=env)


def ok(result: subprocess.CompletedProcess, daemon=None) -> str:
    log = f"\n--- passkeyd log ---\n{daemon.log()}" if daemon else ""
    assert result.returncode == 0, f"exit {result.returncode}\n{result.stdout}\n{result.stderr}{log}"
    return result.stdout


def aaguid_of(daemon) -> str:
    """The daemon's AAGUID in hex, as python-fido2 reads it from getInfo."""
    dev = daemon.device()
    try:
        return bytes(Ctap2(dev).info.aaguid).hex()
    finally:
        dev.close()


def b64(n: int) -> str:
    return base64.b64encode(os.urandom(n)).decode()


def make_credential(daemon, folder, rp_id: str = "example.org", *flags: str) -> tuple[list[str], str]:
    """`fido2-cred -M` then `-V`: the attested credential's lines and its public key (PEM file)."""
    request = folder / f"cred-{rp_id}.in"
    request.write_text(f"{b64(32)}\n{rp_id}\nalice\n{b64(16)}\n")
    made = ok(under_exec(daemon.socket, "fido2-cred", "-M", *flags, "-i", str(request), f"passkeyd:{daemon.socket}"), daemon)
    attested = folder / f"cred-{rp_id}.out"
    attested.write_text(made)
    public_key = folder / f"cred-{rp_id}.pem"  # the credential ID, then its key in PEM
    # -V checks the attestation statement's signature over authData and the client data hash.
    ok(subprocess.run(["fido2-cred", "-V", "-i", str(attested), "-o", str(public_key)], capture_output=True, text=True, timeout=60))
    lines = made.splitlines()
    assert lines[1] == rp_id and lines[2] == "packed"
    verified = public_key.read_text().splitlines()
    assert verified[0] == lines[4], "-V names the credential -M made"
    assert verified[1] == "-----BEGIN PUBLIC KEY-----"
    return lines, str(public_key)


def test_fido2_token_lists_passkeyd_only_under_exec(daemon):
    listed = ok(under_exec(daemon.socket, "fido2-token", "-L"), daemon)
    assert f"passkeyd:{daemon.socket}: vendor=0x0000, product=0x0000 {PRODUCT}" in listed.splitlines()
    plain = subprocess.run(["fido2-token", "-L"], capture_output=True, text=True, timeout=60)
    assert "passkeyd:" not in plain.stdout


def test_fido2_token_prints_the_daemons_getinfo(daemon):
    info = ok(under_exec(daemon.socket, "fido2-token", "-I", f"passkeyd:{daemon.socket}"), daemon)
    assert f"aaguid: {aaguid_of(daemon)}" in info.splitlines()
    assert "version strings: U2F_V2, FIDO_2_0, FIDO_2_1" in info.splitlines()
    options = next(line for line in info.splitlines() if line.startswith("options: ")).split(": ", 1)[1].split(", ")
    # The default fixture's built-in UV (--uv auto) and no PIN.
    assert "uv" in options and "noclientPin" in options and "rk" in options


def test_fido2_cred_then_fido2_assert_verify_with_the_credentials_key(daemon, tmp_path):
    # The default fixture (--uv auto) suffices: a non-resident credential needs no UV
    # (makeCredUvNotRqd), and neither tool asks for any.
    cred, public_key = make_credential(daemon, tmp_path)
    _, other_key = make_credential(daemon, tmp_path, "example.net")
    request = tmp_path / "assert.in"
    request.write_text(f"{b64(32)}\nexample.org\n{cred[4]}\n")
    asserted = tmp_path / "assert.out"
    asserted.write_text(ok(under_exec(daemon.socket, "fido2-assert", "-G", "-i", str(request), f"passkeyd:{daemon.socket}"), daemon))
    verify = ["fido2-assert", "-V", "-i", str(asserted)]
    ok(subprocess.run([*verify, public_key, "es256"], capture_output=True, text=True, timeout=60))
    wrong = subprocess.run([*verify, other_key, "es256"], capture_output=True, text=True, timeout=60)
    assert wrong.returncode != 0 and "FIDO_ERR_INVALID_SIG" in wrong.stderr


def test_resident_credentials_listed_after_a_pin_and_deleted(daemon_factory, tmp_path):
    # --uv off: fido2-cred -M -r sends neither uv nor a PIN, which a device with built-in UV
    # (or a PIN) refuses for a resident key (CTAP 2.1 §6.1.2 step 11: PUAT_REQUIRED); so the
    # credentials are made first, then the PIN that credential management asks for is set.
    d = daemon_factory("--presence", "auto", "--uv", "off")
    kept, _ = make_credential(d, tmp_path, "example.com", "-r")
    gone, _ = make_credential(d, tmp_path, "example.org", "-r")
    ok(passkeyctl(d.socket, "pin", "set", env={**os.environ, "PASSKEYCTL_NEW_PIN": PIN}), d)
    device = f"passkeyd:{d.socket}"

    rps = ok(under_exec(d.socket, "fido2-token", "-L", "-r", device, stdin=PIN + "\n"), d)
    assert sorted(line.split()[-1] for line in rps.splitlines()) == ["example.com", "example.org"]
    creds = ok(under_exec(d.socket, "fido2-token", "-L", "-k", "example.org", device, stdin=PIN + "\n"), d)
    assert [line.split()[1] for line in creds.splitlines()] == [gone[4]]

    wrong = under_exec(d.socket, "fido2-token", "-L", "-r", device, stdin="000000\n")
    assert wrong.returncode != 0 and "FIDO_ERR_PIN_INVALID" in wrong.stderr

    ok(under_exec(d.socket, "fido2-token", "-D", "-i", gone[4], device, stdin=PIN + "\n"), d)
    listed = json.loads(ok(passkeyctl(d.socket, "list", "--json", env={**os.environ, "PASSKEYCTL_PIN": PIN}), d))
    ids = json.dumps(listed)
    urlsafe = lambda text: base64.urlsafe_b64encode(base64.b64decode(text)).decode().rstrip("=")  # noqa: E731
    assert urlsafe(kept[4]) in ids and urlsafe(gone[4]) not in ids
    assert "example.org" not in ids


def test_a_program_opening_devices_with_info_reaches_passkeyd(daemon):
    # fido_dev_new_with_info + fido_dev_open_with_info: libfido2 would read the listed entry's
    # report sizes from a hidraw handle it does not have unless the preload marks the io as its own.
    if not os.access(WITH_INFO, os.X_OK):
        pytest.fail(f"{WITH_INFO} not built (make -C Tests/Interop program)")
    opened = ok(under_exec(daemon.socket, WITH_INFO), daemon)
    assert f"passkeyd:{daemon.socket} aaguid {aaguid_of(daemon)}" in opened.splitlines()


@pytest.mark.parametrize("kind, public_type", [("ecdsa-sk", "sk-ecdsa-sha2-nistp256@openssh.com"), ("ed25519-sk", "sk-ssh-ed25519@openssh.com")])
def test_ssh_keygen_through_openssh_s_own_provider(daemon, tmp_path, kind, public_type):
    # No SSH_SK_PROVIDER: ssh-keygen's ssh-sk-helper uses OpenSSH's built-in libfido2 provider,
    # and inherits LD_PRELOAD from ssh-keygen.
    env = {k: v for k, v in os.environ.items() if k != "SSH_SK_PROVIDER"}
    key = tmp_path / "id_sk"
    made = under_exec(daemon.socket, "ssh-keygen", "-q", "-t", kind, "-N", "", "-C", "passkeyd", "-f", str(key), env=env)
    ok(made, daemon)
    assert (tmp_path / "id_sk.pub").read_text().startswith(public_type + " ")

    data = tmp_path / "message"
    data.write_text("signed by passkeyd\n")
    ok(under_exec(daemon.socket, "ssh-keygen", "-Y", "sign", "-n", "file", "-f", str(key), str(data), env=env), daemon)
    with open(data) as message:
        checked = subprocess.run(
            ["ssh-keygen", "-Y", "check-novalidate", "-n", "file", "-f", f"{key}.pub", "-s", f"{data}.sig"],
            stdin=message, capture_output=True, text=True, timeout=60)
    assert checked.returncode == 0, checked.stderr
    assert "Good" in checked.stdout

    # Without the preload there is no device to sign with.
    os.unlink(f"{data}.sig")
    alone = subprocess.run(["ssh-keygen", "-Y", "sign", "-n", "file", "-f", str(key), str(data)],
                           capture_output=True, text=True, timeout=60, env=env, start_new_session=True)
    assert alone.returncode != 0 and not os.path.exists(f"{data}.sig")


# -- passkeyctl exec itself, and bad input ------------------------------------


def test_exec_hands_over_status_signals_and_environment(daemon):
    env = {**os.environ, "LD_PRELOAD": "libc.so.6"}
    shown = ok(under_exec(daemon.socket, "sh", "-c", 'echo "$LD_PRELOAD"; echo "$PASSKEYD_SOCKET"; grep SigBlk /proc/self/status', env=env))
    preload, socket_path, blocked = shown.splitlines()
    first, library = preload.split(":")
    assert first == "libc.so.6" and library.endswith("/integrations/preload/build/libpasskeyd-preload.so")
    assert socket_path == daemon.socket
    assert blocked.split()[1] == "0" * 16, "the program starts with no signal blocked"
    assert under_exec(daemon.socket, "sh", "-c", "exit 7").returncode == 7
    assert under_exec(daemon.socket, "sh", "-c", "kill -TERM $$").returncode == -15


def test_exec_without_a_command_says_how(daemon):
    done = passkeyctl(daemon.socket, "exec")
    assert done.returncode == 1
    assert "Name the program to run: passkeyctl exec -- COMMAND" in done.stderr


def test_exec_of_a_missing_program_is_127(daemon):
    done = under_exec(daemon.socket, "no-such-program-passkeyd")
    assert done.returncode == 127
    assert "passkeyctl: cannot run no-such-program-passkeyd: No such file or directory (not found on PATH)." in done.stderr


def test_exec_names_the_fix_when_the_library_is_missing(daemon, tmp_path):
    named = under_exec(daemon.socket, "true", env={**os.environ, "PASSKEYD_PRELOAD": str(tmp_path / "nothing.so")})
    assert named.returncode == 1
    assert f"PASSKEYD_PRELOAD names {tmp_path / 'nothing.so'}, which does not exist." in named.stderr

    # A passkeyctl with neither an install nor a source tree around it.
    (tmp_path / "bin").mkdir()
    lonely = tmp_path / "bin" / "passkeyctl"
    shutil.copy(os.path.realpath(PASSKEYCTL), lonely)
    env = {k: v for k, v in os.environ.items() if k != "PASSKEYD_PRELOAD"}
    done = subprocess.run([str(lonely), "--socket", daemon.socket, "exec", "--", "true"], capture_output=True, text=True, timeout=60, env=env)
    assert done.returncode == 1
    # Every folder an install may use is named (make install's lib/passkeyd, a package's multiarch one).
    assert "libpasskeyd-preload.so is not installed (looked for " in done.stderr
    assert f"{tmp_path}/lib/passkeyd/libpasskeyd-preload.so" in done.stderr
    assert "Install it with `make install`" in done.stderr


def test_exec_refuses_a_library_others_can_write(daemon, tmp_path):
    library = os.path.join(os.path.dirname(os.path.realpath(PASSKEYCTL)), "../../../integrations/preload/build/libpasskeyd-preload.so")
    folder = tmp_path / "open"
    folder.mkdir()
    os.chmod(folder, 0o777)
    shutil.copy(library, folder / "libpasskeyd-preload.so")
    done = under_exec(daemon.socket, "true", env={**os.environ, "PASSKEYD_PRELOAD": str(folder / "libpasskeyd-preload.so")})
    assert done.returncode == 1
    assert f"Refusing the preload library {folder}/libpasskeyd-preload.so: {folder} belongs to uid" in done.stderr


@pytest.mark.skipif(os.getuid() != 0, reason="serving a socket as another user needs root")
def test_the_preload_sends_nothing_to_another_users_socket(reachable):  # noqa: F811
    folder = reachable / "foreign"
    folder.mkdir(mode=0o700)
    os.chown(folder, NOBODY, NOBODY)
    pid, path, report = impostor(str(folder), NOBODY)
    done = under_exec(path, "fido2-token", "-I", f"passkeyd:{path}")
    # The impostor reports what its first connection carried; had the preload connected, that
    # connection would be queued ahead of this empty one, which only spares the 20 s accept wait.
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
        probe.connect(path)
    heard = finish(pid, report)
    assert done.returncode != 0
    assert f"passkeyd-libfido2: refusing {path}: its folder belongs to uid {NOBODY}" in done.stderr
    assert heard == 0, f"the impostor heard {heard} bytes"
