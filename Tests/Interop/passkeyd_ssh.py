"""Debian's OpenSSH driven against passkeyd through libpasskeyd-sk.so (integrations/ssh):
the programs' environment, an askpass that types the PIN, a private sshd, an ssh-agent,
and the openssh-key-v1 private key format for editing a key handle."""

from __future__ import annotations

import base64
import os
import shutil
import socket
import struct
import subprocess
import time
from pathlib import Path

from passkeyd_hid import REPO

PROVIDER = os.environ.get("PASSKEYD_SK_PROVIDER", str(REPO / "integrations" / "ssh" / "build" / "libpasskeyd-sk.so"))
SSHD = "/usr/sbin/sshd"  # sshd re-executes itself, so it needs its absolute path
# Every OpenSSH command gets this long: two busy cores and a presence wait or two.
TIMEOUT = 60


def provider() -> str:
    """The provider, built by Tests/Interop's Makefile (or `make -C integrations/ssh`)."""
    if not os.path.exists(PROVIDER):
        subprocess.run(["make", "-s", "-C", str(REPO / "integrations" / "ssh")], check=True, timeout=300)
    return PROVIDER


class OpenSSH:
    """ssh, ssh-keygen, ssh-add and ssh-agent on one passkeyd, with a PIN typed by SSH_ASKPASS.

    The PIN reaches the programs only through the askpass helper (never on a command line),
    and every prompt is logged so a test can say which ones OpenSSH showed."""

    def __init__(self, folder: Path, socket_path: str, pin: str | None = None):
        self.folder = folder
        self.socket = socket_path
        self.prompts = folder / "prompts.log"
        self.pin_file = folder / "pin"
        self.askpass = folder / "askpass"
        self.askpass.write_text(
            "#!/bin/sh\n"
            # ssh shows "Confirm user presence" as a notification (SSH_ASKPASS_PROMPT=none) that it
            # closes itself; only real questions get an answer.
            'printf "%s\\t%s\\n" "${SSH_ASKPASS_PROMPT:-ask}" "$1" >> "$PASSKEYD_TEST_PROMPTS"\n'
            '[ "${SSH_ASKPASS_PROMPT:-}" = none ] && exit 0\n'
            'exec cat "$PASSKEYD_TEST_PIN"\n'
        )
        self.askpass.chmod(0o700)
        self.set_pin(pin)

    def set_pin(self, pin: str | None) -> None:
        """What the user types when asked for a PIN (nothing: the askpass fails)."""
        if pin is None:
            self.pin_file.unlink(missing_ok=True)
        else:
            self.pin_file.write_text(pin + "\n")
            self.pin_file.chmod(0o600)

    def take_prompts(self) -> list[str]:
        """The prompts shown since the last call, as "kind<TAB>text" lines."""
        try:
            lines = self.prompts.read_text().splitlines()
        except FileNotFoundError:
            return []
        self.prompts.unlink()
        return lines

    def env(self, **extra: str) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items()
               if not k.startswith(("PASSKEYD_", "SSH_")) and k not in ("DISPLAY", "WAYLAND_DISPLAY")}
        env.update(
            PASSKEYD_SOCKET=self.socket,
            SSH_ASKPASS=str(self.askpass),
            SSH_ASKPASS_REQUIRE="force",
            DISPLAY=":0",  # never used to draw anything: OpenSSH wants one before it runs askpass
            PASSKEYD_TEST_PROMPTS=str(self.prompts),
            PASSKEYD_TEST_PIN=str(self.pin_file),
        )
        env.update(extra)
        return env

    def run(self, *argv: str, env: dict[str, str] | None = None, stdin: bytes | None = None,
            timeout: float = TIMEOUT, cwd: Path | None = None) -> subprocess.CompletedProcess:
        """A program with no terminal (its own session), so questions go to askpass."""
        return subprocess.run(argv, input=stdin, stdin=None if stdin is not None else subprocess.DEVNULL,
                              capture_output=True, env=env or self.env(), timeout=timeout, start_new_session=True,
                              cwd=cwd or self.folder)

    def keygen(self, key_type: str, path: Path, *options: str, env: dict[str, str] | None = None
               ) -> subprocess.CompletedProcess:
        """ssh-keygen -t KEY_TYPE with the provider named by -w, no passphrase on the key file."""
        return self.run("ssh-keygen", "-q", "-t", key_type, "-w", provider(), "-f", str(path), "-N", "",
                        "-C", path.name, *[a for o in options for a in ("-O", o)], env=env)


def public_key(path: Path) -> str:
    """"type base64" of a .pub file, without its comment."""
    return " ".join(Path(f"{path}.pub").read_text().split()[:2])


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Sshd:
    """A private sshd on 127.0.0.1: its own host key, config, authorized_keys and port, no PAM."""

    def __init__(self, folder: Path):
        self.folder = folder
        folder.mkdir(mode=0o700, exist_ok=True)
        self.host_key = folder / "host_ed25519"
        self.authorized_keys = folder / "authorized_keys"
        self.known_hosts = folder / "known_hosts"
        self.log_path = folder / "sshd.log"
        self.user = os.environ.get("USER") or subprocess.run(["id", "-un"], capture_output=True, text=True).stdout.strip()
        self.proc: subprocess.Popen | None = None
        self.port = 0

    def start(self) -> "Sshd":
        subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(self.host_key)], check=True,
                       capture_output=True, timeout=TIMEOUT)
        self.authorized_keys.write_text("")
        if os.getuid() == 0:
            # Debian's unit makes sshd's privilege-separation folder; a bare `sshd -D` needs it made.
            os.makedirs("/run/sshd", mode=0o755, exist_ok=True)
        for _ in range(5):  # another process may take the free port before sshd binds it
            self.port = free_port()
            config = self.folder / "sshd_config"
            config.write_text("\n".join([
                f"ListenAddress 127.0.0.1:{self.port}",
                f"HostKey {self.host_key}",
                f"AuthorizedKeysFile {self.authorized_keys}",
                f"PidFile {self.folder / 'sshd.pid'}",
                # The temp folders sit under world-writable /tmp, which StrictModes would refuse.
                "StrictModes no",
                "UsePAM no",
                "AuthenticationMethods publickey",
                "PasswordAuthentication no",
                "KbdInteractiveAuthentication no",
                "PermitRootLogin prohibit-password",
                "LogLevel VERBOSE",
                "",
            ]))
            log = open(self.log_path, "ab")
            self.proc = subprocess.Popen([SSHD, "-D", "-e", "-f", str(config)], stdout=log, stderr=subprocess.STDOUT,
                                         stdin=subprocess.DEVNULL)
            log.close()
            if self._wait_for_banner():
                host = " ".join(Path(f"{self.host_key}.pub").read_text().split()[:2])
                self.known_hosts.write_text(f"[127.0.0.1]:{self.port} {host}\n")
                return self
        raise RuntimeError(f"sshd never listened:\n{self.log()}")

    def _wait_for_banner(self, timeout: float = 30) -> bool:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                return False
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=5) as s:
                    if s.recv(64).startswith(b"SSH-2.0-"):
                        return True
            except OSError:
                pass
            time.sleep(0.05)
        self.stop()
        return False

    def authorize(self, *lines: str) -> None:
        self.authorized_keys.write_text("".join(line + "\n" for line in lines))

    def ssh_args(self, *options: str) -> list[str]:
        """ssh to this sshd with no user config, a pinned host key and only public-key auth."""
        args = ["ssh", "-F", "/dev/null", "-p", str(self.port),
                "-o", f"UserKnownHostsFile={self.known_hosts}", "-o", "StrictHostKeyChecking=yes",
                "-o", "IdentitiesOnly=yes", "-o", "PasswordAuthentication=no",
                "-o", "KbdInteractiveAuthentication=no", "-o", "ConnectTimeout=30"]
        for o in options:
            args += ["-o", o]
        return args + [f"{self.user}@127.0.0.1", "echo", "logged-in"]

    def log(self) -> str:
        try:
            return self.log_path.read_text(errors="replace")[-6000:]
        except FileNotFoundError:
            return ""

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


class Agent:
    """ssh-agent -D on a private socket, allowed to load this provider (-P)."""

    def __init__(self, folder: Path, env: dict[str, str]):
        self.socket = str(folder / "agent.sock")
        self.log_path = folder / "agent.log"
        log = open(self.log_path, "ab")
        # The agent signs in its own ssh-sk-helper, with its own environment: PASSKEYD_SOCKET
        # must be set where it starts. Its default allow-list is /usr/lib*/*,/usr/local/lib*/*.
        self.proc = subprocess.Popen(["ssh-agent", "-D", "-a", self.socket, "-P", f"{os.path.dirname(provider())}/*"],
                                     stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=env,
                                     start_new_session=True)
        log.close()
        deadline = time.monotonic() + 30
        while not os.path.exists(self.socket):
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"ssh-agent did not start:\n{self.log()}")
            time.sleep(0.05)

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(15)


# -- openssh-key-v1 (PROTOCOL.key), for editing a security key's key handle ----------


def _string(data: bytes, at: int) -> tuple[bytes, int]:
    (n,) = struct.unpack_from(">I", data, at)
    return data[at + 4 : at + 4 + n], at + 4 + n


def _pack(b: bytes) -> bytes:
    return struct.pack(">I", len(b)) + b


def replace_key_handle(path: Path, handle: bytes) -> bytes:
    """Rewrites an unencrypted sk key file with another key handle; returns the old one."""
    lines = path.read_text().splitlines()
    blob = base64.b64decode("".join(lines[1:-1]))
    magic = b"openssh-key-v1\0"
    assert blob.startswith(magic)
    at = len(magic)
    cipher, at = _string(blob, at)
    assert cipher == b"none", "only unencrypted key files can be edited"
    _, at = _string(blob, at)  # kdf name
    _, at = _string(blob, at)  # kdf options
    (nkeys,) = struct.unpack_from(">I", blob, at)
    assert nkeys == 1
    at += 4
    _, at = _string(blob, at)  # public key
    head = blob[:at]
    private, _ = _string(blob, at)
    p = 8  # two check integers
    key_type, p = _string(private, p)
    fields = 3 if key_type.startswith(b"sk-ecdsa") else 2  # curve + Q + application, or pk + application
    for _ in range(fields):
        _, p = _string(private, p)
    p += 1  # flags
    old, end = _string(private, p)
    body = private[:p] + _pack(handle) + private[end:]
    _, q = _string(body, p + 4 + len(handle))  # reserved
    _, q = _string(body, q)  # comment
    body = body[:q]
    body += bytes(range(1, 1 + (-len(body) % 8)))  # padding 1, 2, 3… to the cipher block (8)
    encoded = base64.b64encode(head + _pack(body)).decode()
    path.write_text("\n".join([lines[0], *[encoded[i : i + 70] for i in range(0, len(encoded), 70)], lines[-1]]) + "\n")
    return old


def copy_key(source: Path, target: Path) -> None:
    shutil.copyfile(source, target)
    target.chmod(0o600)
    shutil.copyfile(f"{source}.pub", f"{target}.pub")
