"""pam_u2f (Debian libpam-u2f) on the real daemon, following docs/integrations.md's recipe:
pamu2fcfg enrolls into a file of passkeyd's own (~/.config/passkeyd/u2f_keys), a PAM service of
its own names it with `authfile=` (relative to the user's home) and an origin of its own, and
pamtester authenticates through it, both under `passkeyctl exec`.

pam_u2f's default file, ~/.config/Yubico/u2f_keys, is what every other pam_u2f service reads
(sudo, login): the recipe never writes it, so enrolled hardware keys stay and a software key
that may approve by itself never becomes a factor there. The tests run as a user of their own
(home in a temporary folder), so the recipe's home-relative paths are not root's."""

from __future__ import annotations

import os
import pwd
import shutil
import subprocess
import tempfile
import uuid
from pathlib import Path

import pytest

from test_libfido2_tools import ok, under_exec

pytestmark = pytest.mark.skipif(os.getuid() != 0, reason="the PAM service file goes in /etc/pam.d, which needs root")

# The recipe's origin and authfile (docs/integrations.md, "pam_u2f").
ORIGIN = "pam://passkeyd"
AUTHFILE = ".config/passkeyd/u2f_keys"
# A hardware key already enrolled for pam_u2f's other services (its handle and key are made up).
HARDWARE_KEY = "Zm9yIGEgaGFyZHdhcmUga2V5,BMZhzEkCsJWcFyqpAYsV0jmFUbLW5OXXqxl3mfDTLQvE,es256,+presence"


def environment() -> dict[str, str]:
    """The test's environment without XDG_CONFIG_HOME, which would move pam_u2f's default file."""
    return {k: v for k, v in os.environ.items() if k != "XDG_CONFIG_HOME"}


def owned_file(path: Path, text: str, owner: pwd.struct_passwd) -> None:
    """A file of `owner`'s in their home (its folders too), as their own pamu2fcfg would write it."""
    home = Path(owner.pw_dir)
    folder = home
    for part in path.parent.relative_to(home).parts:
        folder = folder / part
        folder.mkdir(mode=0o700, exist_ok=True)
        os.chown(folder, owner.pw_uid, owner.pw_gid)
    path.write_text(text)
    path.chmod(0o600)
    os.chown(path, owner.pw_uid, owner.pw_gid)


@pytest.fixture(scope="module")
def person():
    """A user of the test's own, with a home in /tmp holding a hardware key's pam_u2f line."""
    name = f"pk{uuid.uuid4().hex[:10]}"
    home = tempfile.mkdtemp(prefix="passkeyd-pam-home-")
    subprocess.run(["useradd", "-M", "-d", home, "-s", "/usr/sbin/nologin", name], check=True,
                   capture_output=True, timeout=60)
    try:
        user = pwd.getpwnam(name)
        os.chown(home, user.pw_uid, user.pw_gid)
        owned_file(Path(home) / ".config" / "Yubico" / "u2f_keys", f"{name}:{HARDWARE_KEY}\n", user)
        yield user
    finally:
        subprocess.run(["userdel", name], capture_output=True, timeout=60)
        shutil.rmtree(home, ignore_errors=True)


def service(line: str):
    """A PAM service file of its own in /etc/pam.d; its name."""
    name = f"passkeyd-test-{uuid.uuid4().hex[:8]}"
    with open(f"/etc/pam.d/{name}", "x") as f:
        f.write(line + "\n")
    return name


@pytest.fixture(scope="module")
def enrolled(daemon_factory, person):
    """A daemon with one pam_u2f credential for the person, in the recipe's file and service."""
    # --attestation x5c: pamu2fcfg 1.1.0 checks the attestation with fido_cred_verify, which
    # accepts only a statement with a certificate (self attestation is refused: FIDO_ERR_INVALID_ARGUMENT).
    d = daemon_factory("--presence", "auto", "--uv", "auto", "--attestation", "x5c")
    line = ok(under_exec(d.socket, "pamu2fcfg", "-u", person.pw_name, "-o", ORIGIN, "-i", ORIGIN), d).strip()
    name, credential = line.split(":", 1)
    assert name == person.pw_name
    handle, public_key, kind, options = credential.split(",")
    assert kind == "es256" and options == "+presence" and handle and public_key
    owned_file(Path(person.pw_dir) / AUTHFILE, line + "\n", person)
    names = [service(f"auth required pam_u2f.so authfile={AUTHFILE} cue origin={ORIGIN} appid={ORIGIN}")]
    try:
        yield d, names[0]
    finally:
        for n in names:
            os.unlink(f"/etc/pam.d/{n}")


def authenticate(daemon, service_name: str, user: str):
    return under_exec(daemon.socket, "pamtester", service_name, user, "authenticate", env=environment())


def test_pamtester_authenticates_with_the_enrolled_credential(enrolled, person):
    d, name = enrolled
    done = authenticate(d, name, person.pw_name)
    assert done.returncode == 0, f"{done.stdout}\n{done.stderr}\n{d.log()}"
    assert "Please touch the device." in done.stdout + done.stderr
    assert "pamtester: successfully authenticated" in done.stdout + done.stderr


def test_the_hardware_keys_file_is_untouched_and_stock_services_refuse_passkeyd(enrolled, person):
    d, _ = enrolled
    assert (Path(person.pw_dir) / ".config" / "Yubico" / "u2f_keys").read_text() == f"{person.pw_name}:{HARDWARE_KEY}\n"
    # A service as sudo's would be: pam_u2f's default file and origin. passkeyd is not a factor there.
    stock = service("auth required pam_u2f.so cue")
    try:
        done = authenticate(d, stock, person.pw_name)
    finally:
        os.unlink(f"/etc/pam.d/{stock}")
    out = done.stdout + done.stderr
    assert done.returncode != 0, out
    assert "Authentication failure" in out
    assert "successfully authenticated" not in out


def test_a_denied_touch_fails_the_authentication(enrolled, daemon_factory, person):
    d, name = enrolled
    # The same keystore (the credential is non-resident: its key handle is sealed with the
    # keystore's key), now with every touch refused; the approving daemon comes back after.
    assert d.stop() == 0
    try:
        denying = daemon_factory("--presence", "deny", "--uv", "auto", "--attestation", "x5c", data_dir=d.data_dir)
        denied = authenticate(denying, name, person.pw_name)
        assert denying.stop() == 0
    finally:
        d.start()
    out = denied.stdout + denied.stderr
    assert denied.returncode != 0
    assert "Please touch the device." in out, "pam_u2f found the device and asked for the touch"
    assert "Authentication failure" in out
    assert "successfully authenticated" not in out


def test_without_the_preload_pam_u2f_finds_no_device(enrolled, person):
    _, name = enrolled
    alone = subprocess.run(["pamtester", name, person.pw_name, "authenticate"], capture_output=True, text=True,
                           timeout=120, env=environment())
    assert alone.returncode != 0
    assert "Please touch the device." not in alone.stdout + alone.stderr
